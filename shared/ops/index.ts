// The operator's service layer: what the CLIs (scripts/*-cli.ts) and the console's HTTP API
// (shared/console/) both call, so spawning, stopping, skills, status, traces and sessions are
// implemented once.
export { agentSnapshot, componentJid, spawnSpecialist, stopAgent, type AgentRow, type AgentSnapshot, type Presence, type SpawnRequest } from './agents.js';
export {
  checkUpload, findSkill, grantSkill, installSkillDir, installUpload, listSkills, removeSkill, setSkillEnabled, showSkill, updateSkillJson,
  UPLOAD_LIMITS, type SkillSummary, type SkillUpload,
} from './skills.js';
export { deleteSession, listSessions, showSession, verifySession, type SessionVerdict } from './sessions.js';
export { analyseConversation, listConversations, queryMessages, type ConversationDetail, type ConversationSummary, type Hop, type MessageQuery } from './conversations.js';
export { bookings, directory, meetings, readRows, tasks } from './data.js';
