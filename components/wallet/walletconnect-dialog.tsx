"use client";

// The WalletConnect pairing as a QR code drawn here (no hosted modal, nothing downloaded): scan it with a phone
// wallet, copy the link into a wallet, or, on a phone, open the wallet app with it.
import * as React from "react";
import QRCode from "qrcode";
import { ExternalLinkIcon, Loader2Icon } from "lucide-react";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";

/** The QR code of `uri` as an SVG data URL (undefined until drawn). */
function useQrCode(uri: string | undefined): string | undefined {
  const [drawn, setDrawn] = React.useState<{ uri: string; src: string }>();
  React.useEffect(() => {
    if (!uri) return;
    let current = true;
    void QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" }).then((svg) => {
      if (current) setDrawn({ uri, src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` });
    });
    return () => {
      current = false;
    };
  }, [uri]);
  return drawn && drawn.uri === uri ? drawn.src : undefined;
}

export function WalletConnectDialog({
  open,
  uri,
  onCancel,
}: {
  open: boolean;
  /** The pairing URI (`wc:…`), once the relay has it. */
  uri: string | undefined;
  onCancel: () => void;
}) {
  const qrCode = useQrCode(uri);
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onCancel()}>
      <DialogContent className="sm:max-w-sm">
        <DialogHeader>
          <DialogTitle>Scan with your phone wallet</DialogTitle>
          <DialogDescription>
            Open a WalletConnect wallet on your phone (MetaMask, Rainbow, Trust and most others), scan this code and
            approve the connection. Your wallet then asks you to sign the sign-in message.
          </DialogDescription>
        </DialogHeader>
        <div className="mx-auto grid size-64 place-items-center rounded-lg bg-white p-2">
          {uri && qrCode ? (
            // A data: URL drawn in this page; next/image adds nothing for it.
            // eslint-disable-next-line @next/next/no-img-element
            <img
              src={qrCode}
              alt="WalletConnect QR code"
              data-walletconnect-uri={uri}
              className="size-full [image-rendering:pixelated]"
            />
          ) : (
            <Loader2Icon className="size-6 animate-spin text-neutral-500" aria-label="Preparing the code" />
          )}
        </div>
        {uri && (
          <div className="grid gap-2 sm:grid-cols-1">
            <CopyButton value={uri} label="Copy link" className="w-full" />
            {/* On a phone the wallet app is on this device: the wc: link opens it directly. */}
            <a
              href={uri}
              className="inline-flex items-center justify-center gap-2 rounded-md border px-3 py-2 text-sm font-medium sm:hidden"
            >
              <ExternalLinkIcon className="size-4" /> Open in a wallet app
            </a>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
