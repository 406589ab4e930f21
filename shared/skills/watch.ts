// Hot reload (issue "Skills, roles and spawning"): chokidar watches both skills directories;
// any change (a skill folder added or removed, skill.json or a handler edited, _registry.json
// rewritten by `npm run skills -- enable|disable`) is debounced into one reload, so a burst of
// writes (copying a folder) becomes a single catalogue read.
import fs from 'node:fs';
import { watch } from 'chokidar';
import type { SkillDirs } from './catalogue.js';

export interface SkillWatcher {
  close(): Promise<void>;
}

export function watchSkills(dirs: SkillDirs, onChange: () => void, debounceMs = 150): SkillWatcher {
  // The user directory may not exist yet: create it so that adding the first skill is seen.
  fs.mkdirSync(dirs.user, { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch([dirs.builtin, dirs.user], { ignoreInitial: true, depth: 3 });
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  // A watcher error (e.g. too many files) must not stop the specialist: it keeps its skills.
  watcher.on('error', () => undefined);
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
