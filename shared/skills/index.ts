// Public API of shared/skills/ (issue 10 §2): code outside this folder imports it from here;
// modules inside it import each other directly.
export {
  type Catalogue, type SkillDef, type SkillDirs, defaultSkillDirs, loadCatalogue, readRegistry,
  readSkill, writeRegistry,
} from './catalogue.js';
export { MANIFEST_SCHEMA, SKILL_NAME, type SkillManifest, checkSkillManifest } from './manifest.js';
export { type Role, ROLE_FILE_SCHEMA, defaultRoleName, loadRoles, precompileOwnValidators, roleAllows } from './roles.js';
export { draft07Check, isDraft07, precompiledValidator } from './own-validators.js';
export {
  IN_PROCESS_MAX_CHARS, IN_PROCESS_MAX_OPERATORS, IN_PROCESS_MAX_PATTERNS, LINEAR_ENGINE,
  QuickRecogniser,
} from './recognition.js';
