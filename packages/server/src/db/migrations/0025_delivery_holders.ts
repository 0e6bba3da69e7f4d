import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * A process that claims delivery rows proves it is alive: it registers in delivery_holders
 * and renews its heartbeat (renewed_at) while it runs (delivery/holder.ts), and every row it
 * claims carries its id (holder). A holder whose heartbeat lapsed is dead, and other processes
 * take its rows over in seconds instead of waiting out the rows' own leases (30 s for a
 * normalized delivery, 2 minutes for a raw forward), which still bound a holder that is alive
 * but hung. The columns are nullable without a default (adding them rewrites no row) and
 * carry no index and no foreign key: the claim and record statements stay as they were (a
 * row's holder changes with every claim, which an indexed column would make a non-HOT update).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create table delivery_holders (
  id bigint generated always as identity primary key,
  started_at timestamptz not null default now(),
  renewed_at timestamptz not null
);
alter table webhook_deliveries add column holder bigint;
alter table platform_deliveries add column holder bigint;
`))
