/** `platform help environment`. */
export const environment = `Environment

  Settings are resolved in this order: command-line flag > environment variable >
  profile in the config file > default.

  PLATFORM_API_KEY      API key (flag --api-key; profile field api_key)
  PLATFORM_BASE_URL     API origin (flag --base-url; profile field base_url;
                        default http://localhost:8080)
  PLATFORM_PROFILE      profile to use (flag --profile; default "default")
  PLATFORM_DASHBOARD_EMAIL, PLATFORM_DASHBOARD_PASSWORD
                        dashboard login for \`platform sandbox inbound\`; the password
                        also for \`platform login --email\` (else it is prompted for)
  NO_COLOR              any value turns colours off (as does --no-color);
                        colours are only ever used on a terminal
  XDG_CONFIG_HOME       config directory (default ~/.config); profiles live in
                        $XDG_CONFIG_HOME/platform/config.json, written with mode 0600
                        by \`platform login\` and \`platform listen\`; \`platform login --email\`
                        keeps a dashboard session there (profile field session), which
                        \`keys\`, \`channels connect|disconnect\`, \`webhooks raw-forward\`,
                        \`billing\` and \`trigger\` use

  Config file format:
    {"profiles": {"default": {"api_key": "pk_live_...", "base_url": "http://localhost:8080"}}}
`

/** `platform help exit-codes`. */
export const exitCodes = `Exit codes

  0    success
  1    failure: the API answered an error (4xx/5xx other than 401), or the network failed
  2    usage: unknown command or option, missing or invalid argument (a file to
       upload that is missing or a directory included, a base URL that is not an
       http(s) URL)
  4    authentication: no API key configured, or the key was rejected (401); a
       dashboard command without a session, or with one expired or revoked
  130  interrupted (Ctrl-C) while a command was running

  With --json, data goes to stdout as one JSON document (streaming commands: one
  JSON object per line; paged lists: the API's {data, has_more, next_cursor});
  messages and errors always go to stderr.
`
