export type Api = 'openai' | 'anthropic';
export interface LoggedRequest {
  api: Api;
  url: string;
  body: any;
  inputTokens: number;
}
export interface StandInModel {
  url: string;
  requests: LoggedRequest[];
  reset(): LoggedRequest[];
  close(): Promise<void>;
}
export const READ_TOOL: string;
export function apiOf(url: string): Api;
export function toolResults(api: Api, body: any): Array<{ id: string; text: string }>;
export function toolPairs(api: Api, body: any): Array<{ call: string; result: string | undefined }>;
export function systemTexts(api: Api, body: any): string[];
export function userPrompts(api: Api, body: any): number;
export function inputTokensOf(body: any): number;
export function startStandInModel(options?: { readsPerPrompt?: number }): Promise<StandInModel>;
