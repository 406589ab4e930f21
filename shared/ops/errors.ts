// One error type for the service layer: the CLIs print `detail`, the console API answers
// `status` with {error: code, detail} (docs: "HTTP 4xx with a body, never a crash").
export class OpsError extends Error {
  constructor(readonly status: number, readonly code: string, detail: string) {
    super(detail);
  }
}
