import { SecretReveal } from "@/components/ui/secret-reveal";

/** A new API key's secret, shown once (after create and rotate); `children` adds what else to know. */
export function ApiKeySecret({
  secret,
  onCopy,
  children,
}: {
  secret: string;
  onCopy?: () => void;
  children?: React.ReactNode;
}) {
  return (
    <SecretReveal id="api-key-secret" label="Your new API key" copyLabel="Copy API key" secret={secret} onCopy={onCopy}>
      <p>
        We store only a hash of this key. Keep it in a secret manager or an environment variable such as{" "}
        <code className="font-mono">EXECUTION_NETWORK_API_KEY</code>, never in source code.
      </p>
      {children}
    </SecretReveal>
  );
}
