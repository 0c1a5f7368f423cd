/** Stands in for the engine when it could not start, so the window can still say why. */
import { REMOTE_METHODS, type EngineApi, type EngineErrorData, type Result } from '../../native/contract/index.js';

export function unavailableEngine(error: EngineErrorData): EngineApi {
  const failed = async (): Promise<Result<never>> => ({ ok: false, error });
  const engine: Record<string, unknown> = Object.fromEntries(REMOTE_METHODS.map((method) => [method, failed]));
  engine.close = async () => {};
  return engine as unknown as EngineApi;
}
