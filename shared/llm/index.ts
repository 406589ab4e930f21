// Public API of shared/llm/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export {
  type ChatAnswer, type ChatMessage, type ChatRequest, LlmError, type LlmSettings, type ToolCall,
  type ToolSpec, chatCompletion, endpoint,
} from './client.js';
export { describeLlm, keyFile, llmSettings } from './config.js';
