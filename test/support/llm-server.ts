// The scripted OpenAI-compatible server (shared/llm/scripted-server.ts, shared with the bench).
export { type Received, type Reply, reply, ScriptedLlm } from '../../shared/llm/scripted-server.js';
