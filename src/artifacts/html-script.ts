import { createHash } from 'node:crypto'

/**
 * report.html's one script, inline and allowed by its hash in the page's Content-Security-Policy
 * (no other script can run, no request can leave). It only adds: search, a verdict filter and
 * sorting of the rate table (the toolbar is `hidden` until the script shows it), and opening the
 * failing repetition a strip mark or a `#s1-r5` address points at, in every browser. Without it
 * the page is whole: every repetition is a `<details>` a click opens, and Chromium opens the one a
 * followed link points into.
 * Words come from the page (data-* attributes), so one script serves every language.
 */
export const HTML_SCRIPT = `(() => {
  const $ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const reveal = (id) => {
    const target = id && document.getElementById(id);
    if (!target) return;
    for (let node = target; node; node = node.parentElement) if (node.tagName === 'DETAILS') node.open = true;
    const details = target.closest('details');
    const summary = details && details.querySelector('summary');
    (summary || target).scrollIntoView({ block: 'start' });
    if (summary) summary.focus({ preventScroll: true });
  };
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a[href^="#"]');
    if (link) reveal(decodeURIComponent(link.getAttribute('href').slice(1)));
  });
  window.addEventListener('hashchange', () => reveal(decodeURIComponent(location.hash.slice(1))));
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));

  const form = document.getElementById('find');
  if (!form) return;
  const query = form.querySelector('#q');
  const verdict = form.querySelector('#verdict');
  const sort = form.querySelector('#sort');
  const count = form.querySelector('output');
  const items = $('[data-item]');
  const apply = () => {
    const words = query.value.trim().toLowerCase().split(/\\s+/).filter(Boolean);
    const wanted = verdict.value;
    let shown = 0;
    for (const item of items) {
      const id = (item.dataset.id || '').toLowerCase();
      const tags = (item.dataset.tags || '').split(' ');
      const match = words.every((word) => id.includes(word)) && (wanted === '' || item.dataset.verdict === wanted || tags.includes(wanted));
      item.hidden = !match;
      if (match && item.hasAttribute('data-count')) shown++;
    }
    for (const group of $('[data-group]')) {
      const members = $('[data-item]', group);
      const any = members.some((member) => !member.hidden);
      group.hidden = members.length > 0 && !any;
      if (group.tagName === 'DETAILS' && any && (words.length > 0 || wanted !== '')) group.open = true;
    }
    count.value = form.dataset.shown.replace('{shown}', String(shown)).replace('{total}', String($('[data-item][data-count]').length));
  };
  const keys = {
    concern: (row) => [-Number(row.dataset.ciLow), -Number(row.dataset.failures)],
    rate: (row) => [-Number(row.dataset.rate), -Number(row.dataset.failures)],
    failures: (row) => [-Number(row.dataset.failures), -Number(row.dataset.rate)],
    name: (row) => [row.dataset.id],
  };
  const order = () => {
    const key = keys[sort.value] || keys.concern;
    for (const body of $('table.rates tbody')) {
      const rows = $('tr', body);
      rows.sort((a, b) => {
        const x = key(a);
        const y = key(b);
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
        const [p, q] = [a.dataset.id || '', b.dataset.id || ''];
        return p < q ? -1 : p > q ? 1 : 0;
      });
      for (const row of rows) body.appendChild(row);
    }
  };
  form.addEventListener('submit', (event) => event.preventDefault());
  query.addEventListener('input', apply);
  verdict.addEventListener('change', apply);
  sort.addEventListener('change', order);
  form.hidden = false;
  apply();
})();`

/** The CSP source that lets exactly HTML_SCRIPT run. */
export const HTML_SCRIPT_HASH = `'sha256-${createHash('sha256').update(HTML_SCRIPT, 'utf8').digest('base64')}'`
