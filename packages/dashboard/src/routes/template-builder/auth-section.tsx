import type { ApiError } from "../../api/api-error"
import { Field, SelectField } from "../../components/field"
import type { BuilderState, OtpKind, Sections } from "./builder-model"
import { errorAt, issuesUnder } from "./field-issues"
import { SectionIssues } from "./inputs"

/** The authentication category's fixed shape: BODY (security note), FOOTER (code expiry), one OTP button. */
export const AuthSection = ({ state, onChange, error, sections }: {
  state: BuilderState
  onChange: (changes: Partial<BuilderState>) => void
  error: ApiError | undefined
  sections: Sections
}) => {
  const footerAt = `components.${sections.footer}`
  const buttonAt = `components.${sections.buttons}.buttons.0`
  const oneOrZeroTap = state.otpType !== "COPY_CODE"
  return (
    <fieldset>
      <legend>Authentication (one-time code)</legend>
      <p className="muted">The upstream writes the message itself: "<i>{"{{1}}"} is your verification code.</i>"</p>
      <label className="check"><input type="checkbox" checked={state.securityRecommendation} onChange={(e) => onChange({ securityRecommendation: e.currentTarget.checked })} /> Add the security recommendation ("For your security, do not share this code.")</label>
      <Field label="Code expires after (minutes, 1 to 90; empty: no expiry note)" name={`${footerAt}.code_expiration_minutes`} type="number" min={1} max={90} value={state.codeExpiration} error={errorAt(error, `${footerAt}.code_expiration_minutes`)} onChange={(e) => onChange({ codeExpiration: e.currentTarget.value })} />
      <SelectField label="One-time code button" value={state.otpType} onChange={(e) => onChange({ otpType: e.currentTarget.value as OtpKind })}>
        <option value="COPY_CODE">Copy code</option>
        <option value="ONE_TAP">One-tap autofill</option>
        <option value="ZERO_TAP">Zero-tap</option>
      </SelectField>
      <Field label="Button text" name={`${buttonAt}.text`} value={state.otpText} maxLength={25} error={errorAt(error, `${buttonAt}.text`)} onChange={(e) => onChange({ otpText: e.currentTarget.value })} />
      {oneOrZeroTap ? (
        <div className="row">
          <Field label="Android package name" name={`${buttonAt}.supported_apps.0.package_name`} value={state.packageName} error={errorAt(error, `${buttonAt}.supported_apps.0.package_name`)} onChange={(e) => onChange({ packageName: e.currentTarget.value })} />
          <Field label="App signature hash" name={`${buttonAt}.supported_apps.0.signature_hash`} value={state.signatureHash} error={errorAt(error, `${buttonAt}.supported_apps.0.signature_hash`)} onChange={(e) => onChange({ signatureHash: e.currentTarget.value })} />
        </div>
      ) : null}
      <SectionIssues issues={issuesUnder(error, "components").filter((i) => !i.field.endsWith("code_expiration_minutes") && !i.field.includes("supported_apps") && i.field !== `${buttonAt}.text`)} />
    </fieldset>
  )
}
