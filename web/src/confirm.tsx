/** Confirmation before anything destructive: a modal that says what will go, and two buttons. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, ErrorBox, useAction } from './ui';

export interface Confirming { title: string; body: ComponentChildren; action: string; run: () => Promise<void> }

/** `ask(…)` opens the dialog; `dialog` is rendered once by the page. */
export function useConfirm() {
  const [c, setC] = useState<Confirming | null>(null);
  const a = useAction();
  const dialog = (
    <Dialog title={c?.title ?? ''} open={!!c} onClose={() => { setC(null); a.setError(null); }}>
      <div class="stack">
        <div>{c?.body}</div>
        <ErrorBox error={a.error} />
        <div class="row tight">
          <button type="button" class="danger" disabled={a.busy} onClick={() => a.run(async () => { await c!.run(); setC(null); })}>{c?.action}</button>
          <button type="button" onClick={() => { setC(null); a.setError(null); }}>Cancel</button>
        </div>
      </div>
    </Dialog>
  );
  return { ask: setC, dialog };
}
