// Skills: every skill with its status and an enable/disable toggle, an upload form (skill.json
// and its handler) and an inline skill.json editor. The server validates against the manifest
// schema before anything is saved; the editor checks that the text is JSON before it asks.
import { api, h, toast } from '../app.js';

const HANDLER_EXAMPLE = `export async function run(input) {\n  return { answer: 'echo: ' + input.question };\n}\n`;

function editor(onSaved) {
  const title = h('h3', {}, 'skill.json editor');
  const area = h('textarea.code#skill-json', { rows: 16, spellcheck: false, disabled: true });
  const status = h('p.small#editor-status');
  let name;
  const check = () => {
    try {
      JSON.parse(area.value);
      status.textContent = 'valid JSON — the server checks it against the skill schema on save';
      status.className = 'small muted';
      return true;
    } catch (err) {
      status.textContent = `not JSON: ${err.message}`;
      status.className = 'small error';
      return false;
    }
  };
  area.addEventListener('input', check);
  const save = h('button.primary', { disabled: true, onclick: async () => {
    if (!check()) return;
    try {
      await api(`/api/skills/${encodeURIComponent(name)}`, { method: 'PUT', body: { skill_json: area.value } });
      toast(`${name}: skill.json saved`);
      onSaved();
    } catch (err) {
      status.textContent = err.message;
      status.className = 'small error';
    }
  } }, 'Validate & save');
  return {
    el: h('div.card', {}, title, area, h('div.row', {}, save, status)),
    async open(n) {
      name = n;
      const s = await api(`/api/skills/${encodeURIComponent(n)}`);
      title.textContent = `skill.json — ${n}${s.source === 'builtin' ? ' (built in, read-only)' : ''}`;
      area.value = s.skill_json;
      area.disabled = s.source === 'builtin';
      save.disabled = s.source === 'builtin';
      check();
    },
  };
}

function uploadForm(onSaved) {
  const name = h('input#up-name', { placeholder: 'name, e.g. echo', required: true });
  const manifest = h('textarea.code#up-skill-json', { rows: 8, spellcheck: false, placeholder: 'skill.json' });
  const handler = h('textarea.code#up-handler', { rows: 6, spellcheck: false, value: HANDLER_EXAMPLE });
  const file = h('input', { type: 'file', accept: '.js,.mjs', onchange: async () => (handler.value = await file.files[0].text()) });
  const error = h('p.error.small#upload-error');
  name.addEventListener('input', () => {
    if (manifest.dataset.touched) return;
    manifest.value = JSON.stringify({ name: name.value, description: `The ${name.value} skill.`, version: '1.0.0', handler: './handler.js', topics: [name.value] }, null, 2);
  });
  manifest.addEventListener('input', () => (manifest.dataset.touched = '1'));
  return h('form.card.upload#upload', { onsubmit: async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      const r = await api('/api/skills', { method: 'POST', body: { name: name.value.trim(), skill_json: manifest.value, files: { 'handler.js': handler.value } } });
      toast(`uploaded ${r.skill.name} ${r.skill.version}`);
      onSaved();
    } catch (err) {
      error.textContent = `${err.code ?? 'error'}: ${err.message}`;
    }
  } }, h('h3', {}, 'Upload a skill'), h('label', {}, 'Name'), name, h('label', {}, 'skill.json'), manifest, h('label', {}, 'handler.js ', file), handler, h('button.primary', { type: 'submit' }, 'Upload'), error);
}

export async function skillsPage(main) {
  const list = h('div.card#skills');
  const ed = editor(() => refresh());
  async function refresh() {
    const [c, live] = await Promise.all([api('/api/skills'), api('/api/agents').catch(() => ({ agents: [] }))]);
    // Who answers with each skill now: an enabled skill no running specialist serves is one people
    // ask in vain ("I can't help with that one"), so the page says so and offers to start one.
    const servers = (name) => live.agents.filter((a) => a.presence !== 'offline' && a.skills.includes(name)).map((a) => a.name);
    const start = (name) => h('button.small.primary', { onclick: async (e) => {
      e.target.disabled = true;
      try {
        // Answers once the Registry accepted the new specialist (routes.ts): it serves at once.
        const r = await api('/api/agents/spawn', { method: 'POST', body: { name: name.replace(/_/g, '-'), skills: [name] } });
        toast(`${r.agent?.name ?? `specialist-${name}`} ready in ${((r.ready_ms ?? 0) / 1000).toFixed(1)} s, serving ${name}`);
      } catch (err) {
        toast(err.message, 'error');
      }
      // Its presence reaches the agents' list a moment after the spawn answers (a loaded machine:
      // seconds): read again until it shows as serving, for up to 30 s.
      for (let i = 0; i < 30 && !(await refresh()).includes(name); i += 1) await new Promise((r) => setTimeout(r, 1000));
    } }, 'Start a specialist');
    const served = (s) => {
      const by = servers(s.name);
      if (by.length) return h('td.small', {}, by.join(', '));
      return h('td.small', {}, s.enabled ? h('span.badge.warn', { title: 'enabled, but no running specialist serves it' }, 'not served') : h('span.muted', {}, '—'), s.enabled ? ' ' : '', s.enabled ? start(s.name) : '');
    };
    list.replaceChildren(h('h3', {}, `${c.skills.length} skills, ${c.skills.filter((s) => s.enabled).length} enabled`),
      h('table.grid', {}, h('thead', {}, h('tr', {}, ['Enabled', 'Skill', 'Source', 'Version', 'Description', 'Served by', ''].map((t) => h('th', {}, t)))),
        h('tbody', {}, c.skills.map((s) => h('tr', { dataset: { skill: s.name } },
          h('td', {}, h('label.switch', {}, h('input', { type: 'checkbox', checked: s.enabled, 'aria-label': `enable ${s.name}`, onchange: async (e) => {
            try {
              const r = await api(`/api/skills/${encodeURIComponent(s.name)}/toggle`, { method: 'POST', body: { enabled: e.target.checked } });
              toast(`${s.name} ${r.skill.enabled ? 'enabled' : 'disabled'}; specialists follow within seconds`);
            } catch (err) {
              toast(err.message, 'error');
            }
            refresh();
          } }), h('span.slider'))),
          h('td', {}, h('strong', {}, s.name), s.topics.length ? h('div.muted.small', {}, s.topics.slice(0, 6).join(', ')) : ''),
          h('td', {}, h('span.badge.' + (s.source === 'user' ? 'warn' : 'off'), {}, s.source), s.overrides ? h('span.small.muted', {}, ' overrides') : ''),
          h('td.mono.small', {}, s.version),
          h('td.small', {}, s.description),
          served(s),
          h('td', {}, h('button.small', { onclick: () => ed.open(s.name) }, 'Edit'), s.source === 'user' ? h('button.small.danger', { onclick: async () => {
            await api(`/api/skills/${encodeURIComponent(s.name)}`, { method: 'DELETE' }).catch((err) => toast(err.message, 'error'));
            refresh();
          } }, 'Delete') : ''))))),
      c.problems.length ? h('div', {}, h('h4', {}, 'Skipped'), c.problems.map((p) => h('p.error.small', {}, `${p.name ?? p.dir}: ${p.detail}`))) : '');
    /** The skills a running specialist serves now. */
    return c.skills.map((s) => s.name).filter((n) => servers(n).length > 0);
  }
  main.append(h('div.page-head', {}, h('h2', {}, 'Skills'), h('span.muted', {}, 'running specialists follow every change within seconds')), list, h('div.two', {}, uploadForm(() => refresh()), ed.el));
  await refresh();
  return {};
}
