import { SecretShownOnce } from "@/components/resource/secret-shown-once";

/** A new API key's secret, shown once (after create and rotate); `children` adds what else to know. */
export function ApiKeySecret({ secret, children }: { secret: string; children?: React.ReactNode }) {
  return (
    <SecretShownOnce id="api-key-secret" label="Your new API key" copyWhat="API key" secret={secret}>
      <p>
        We store only a hash of this key. Keep it in a secret manager or an environment variable such as{" "}
        <code className="font-mono">EXECUTION_NETWORK_API_KEY</code>, never in source code.
      </p>
      {children}
    </SecretShownOnce>
  );
}
