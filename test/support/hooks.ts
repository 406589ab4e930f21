// Mocha root hooks (loaded through .mocharc.json "require"): stop every ejabberd a test started.
import { stopAll } from './ejabberd.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60000);
    await stopAll();
  },
};
