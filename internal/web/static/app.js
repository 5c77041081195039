// The vts page: choose pages, upload them, follow the job, download the result. Plain DOM code;
// everything that comes from the user or the server is inserted as text, never as HTML.
'use strict';

const LANGUAGES = [
  ['ar', 'Arabic'], ['bg', 'Bulgarian'], ['bn', 'Bengali'], ['ca', 'Catalan'], ['cs', 'Czech'],
  ['da', 'Danish'], ['de', 'German'], ['el', 'Greek'], ['en', 'English'], ['es', 'Spanish'],
  ['et', 'Estonian'], ['fa', 'Persian'], ['fi', 'Finnish'], ['fr', 'French'],
  ['he', 'Hebrew'], ['hi', 'Hindi'], ['hr', 'Croatian'], ['hu', 'Hungarian'], ['id', 'Indonesian'],
  ['it', 'Italian'], ['ja', 'Japanese'], ['ko', 'Korean'], ['lt', 'Lithuanian'], ['lv', 'Latvian'],
  ['ms', 'Malay'], ['nl', 'Dutch'], ['no', 'Norwegian'], ['pl', 'Polish'], ['pt', 'Portuguese'],
  ['ro', 'Romanian'], ['ru', 'Russian'], ['sk', 'Slovak'], ['sl', 'Slovenian'], ['sr', 'Serbian'],
  ['sv', 'Swedish'], ['sw', 'Swahili'], ['ta', 'Tamil'], ['th', 'Thai'], ['tl', 'Tagalog'],
  ['tr', 'Turkish'], ['uk', 'Ukrainian'], ['ur', 'Urdu'], ['vi', 'Vietnamese'], ['zh', 'Chinese'],
  ['zh-Hans', 'Chinese (Simplified)'], ['zh-Hant', 'Chinese (Traditional)'],
];

// The spec's cost rule: ceil(pages × resolution multiplier × mode multiplier).
const RESOLUTION_MULTIPLIER = { original: 1, '1K': 1, '2K': 2, '4K': 4 };
const MODE_MULTIPLIER = { fast: 0.5, standard: 1, advanced: 2 };
// Largest file per plan, in MB (the server enforces it; the page only warns).
const PLAN_MAX_MB = { free: 5, starter: 10, standard: 25, pro: 50 };
const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
// Chapters: a CBZ or ZIP of page images, expanded by the server into its pages.
const ARCHIVE_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/vnd.comicbook+zip', 'application/x-cbz'];
const PAGE_EXT = /\.(jpe?g|png|webp)$/i;
const MAX_FILES = 200;
const RECENT_KEY = 'vts.recentJobs';
const USER_KEY = 'vts.userId';
const TOKEN_KEY = 'vts.token';
// A block read with less confidence than this is flagged for the proofreader.
const LOW_CONFIDENCE = 0.6;

const $ = (id) => document.getElementById(id);

// bringIntoView brings a part of the page into view: smoothly, unless the reader asked for less motion.
function bringIntoView(node) {
  const reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  node.scrollIntoView({ behavior: reduce ? 'auto' : 'smooth', block: 'start' });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function credits(pages, resolution, mode) {
  if (pages === 0) return 0;
  return Math.ceil(pages * (RESOLUTION_MULTIPLIER[resolution] || 1) * (MODE_MULTIPLIER[mode] || 1));
}

function formatBytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
  return (n / (1024 * 1024)).toFixed(1) + ' MB';
}

function storageGet(store, key) {
  try { return store.getItem(key) || ''; } catch { return ''; }
}
function storageSet(store, key, value) {
  try { if (value) store.setItem(key, value); else store.removeItem(key); } catch { /* private mode */ }
}

// ---- state ----
const state = {
  files: [],          // {file, url}
  account: null,
  job: null,          // {id, source: EventSource|null, results: Map, deleteArmed: bool}
};

// randomKey is 128 random bits in hex; getRandomValues, unlike randomUUID, also exists on pages
// served over plain http.
function randomKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function userId() { return $('user-id').value.trim(); }

function authHeaders(extra) {
  const h = Object.assign({}, extra || {});
  const token = $('token').value.trim();
  if (token) h.Authorization = 'Bearer ' + token;
  return h;
}

// apiError turns a non-2xx answer into a readable message: the API's {"error":{code,message}}.
async function apiError(resp) {
  let code = '', message = '', details = null;
  try {
    const body = await resp.json();
    if (body && body.error) ({ code, message, details } = body.error);
  } catch { /* not JSON */ }
  return describeError(resp.status, code, message, details, resp.headers.get('Retry-After'));
}

function describeError(status, code, message, details, retryAfter) {
  let text = message || ('the server answered ' + status);
  if (status === 402 && details && details.creditsNeeded !== undefined) {
    text += ` (this upload needs ${details.creditsNeeded} credits; you have ${details.creditsAvailable ?? 0})`;
  }
  if (status === 429 && retryAfter) text += ` Try again in ${retryAfter} s.`;
  const title = {
    400: 'The request was refused', 401: 'Not signed in', 402: 'Not enough credits', 403: 'Not allowed',
    404: 'Not found', 409: 'Not ready', 410: 'Expired', 413: 'Too large', 415: 'Unsupported file',
    422: 'Unreadable image', 429: 'Too many jobs at once', 503: 'Service unavailable',
  }[status] || 'Error';
  return { status, code, title, text };
}

function showError(box, err) {
  // Problems the page finds itself have no status to show.
  const where = [err.status || '', err.code || ''].filter(Boolean).join(' ');
  box.replaceChildren(
    el('strong', { text: err.title + (where ? ` (${where})` : '') }),
    el('span', { text: ': ' + err.text }));
  box.hidden = false;
}

function hideError(box) {
  box.hidden = true;
  box.replaceChildren();
}

// ---- account ----
async function refreshAccount() {
  const id = userId();
  const note = $('acct-note');
  if (!id) {
    state.account = null;
    renderAccount();
    note.textContent = 'Enter a user ID to see your credits.';
    return;
  }
  try {
    const resp = await fetch('/api/account?userId=' + encodeURIComponent(id), { headers: authHeaders() });
    if (id !== userId()) return; // the field changed meanwhile
    if (!resp.ok) {
      const err = await apiError(resp);
      state.account = null;
      renderAccount();
      note.textContent = `${err.title}: ${err.text}`;
      return;
    }
    state.account = await resp.json();
    note.textContent = '';
    renderAccount();
  } catch {
    note.textContent = 'The service does not answer.';
  }
}

function renderAccount() {
  const a = state.account;
  const plan = a && a.plan ? a.plan.charAt(0).toUpperCase() + a.plan.slice(1) : '—';
  $('acct-plan').textContent = plan;
  $('acct-allowance').textContent = a ? `${a.allowanceCredits} credits` : '—';
  $('acct-purchased').textContent = a ? `${a.purchasedCredits} credits` : '—';
  let period = '—';
  if (a && a.periodEnd && !a.periodEnd.startsWith('0001-')) {
    const d = new Date(a.periodEnd);
    if (!isNaN(d)) period = d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  }
  $('acct-period').textContent = period;
  $('acct-period').title = a && a.periodEnd ? a.periodEnd : '';
  renderSummary();
}

// ---- choosing files ----
function addFiles(list) {
  const rejected = [];
  for (const file of list) {
    const ext = (file.name.split('.').pop() || '').toLowerCase();
    const archive = ARCHIVE_TYPES.includes(file.type) || ['cbz', 'zip'].includes(ext);
    const okType = archive || ACCEPTED_TYPES.includes(file.type) || ['jpg', 'jpeg', 'png', 'webp'].includes(ext);
    if (!okType) { rejected.push(file.name); continue; }
    if (state.files.some((f) => f.file.name === file.name && f.file.size === file.size && f.file.lastModified === file.lastModified)) continue;
    const entry = archive ? { file, url: '', archive: true, pages: null } : { file, url: URL.createObjectURL(file) };
    state.files.push(entry);
    if (archive) {
      countArchivePages(file).then((n) => { entry.pages = n; renderFiles(); });
    }
  }
  renderFiles(rejected);
}

// countArchivePages counts the page images listed in a ZIP's central directory, the way the
// server will expand it (folders of system files and hidden files left out), so the page can
// show the chapter's cost before it is sent. The server decides; null when the count cannot be
// read here (ZIP64, a damaged archive).
async function countArchivePages(file) {
  try {
    const tailSize = Math.min(file.size, 65557);
    const tail = new DataView(await file.slice(file.size - tailSize).arrayBuffer());
    let eocd = -1;
    for (let i = tail.byteLength - 22; i >= 0; i--) {
      if (tail.getUint32(i, true) === 0x06054b50) { eocd = i; break; }
    }
    if (eocd < 0) return null;
    const size = tail.getUint32(eocd + 12, true);
    const offset = tail.getUint32(eocd + 16, true);
    if (size === 0xffffffff || offset === 0xffffffff || offset + size > file.size) return null;
    const dir = new DataView(await file.slice(offset, offset + size).arrayBuffer());
    const decoder = new TextDecoder();
    let n = 0;
    for (let p = 0; p + 46 <= dir.byteLength && dir.getUint32(p, true) === 0x02014b50;) {
      const nameLen = dir.getUint16(p + 28, true), extraLen = dir.getUint16(p + 30, true), commentLen = dir.getUint16(p + 32, true);
      const name = decoder.decode(new Uint8Array(dir.buffer, dir.byteOffset + p + 46, nameLen));
      const hidden = name.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
      if (!hidden && PAGE_EXT.test(name)) n++;
      p += 46 + nameLen + extraLen + commentLen;
    }
    return n;
  } catch {
    return null;
  }
}

// pageCount is how many pages the chosen files hold: a chapter counts its pages (one while they
// are being counted or cannot be).
function pageCount() {
  return state.files.reduce((n, f) => n + (f.archive ? (f.pages ?? 1) : 1), 0);
}

function removeFile(index) {
  const [gone] = state.files.splice(index, 1);
  if (gone && gone.url) URL.revokeObjectURL(gone.url);
  renderFiles([]);
}

function clearFiles() {
  for (const f of state.files) if (f.url) URL.revokeObjectURL(f.url);
  state.files = [];
  $('files').value = '';
  renderFiles([]);
}

function renderFiles(rejected) {
  const thumbs = $('thumbs');
  thumbs.replaceChildren(...state.files.map((f, i) => el('li', { class: f.archive ? 'thumb broken chapter' : 'thumb' },
    f.archive
      ? el('span', { class: 'thumb-nopreview', text: f.pages == null ? 'Chapter' : `Chapter, ${f.pages} page${f.pages === 1 ? '' : 's'}` })
      : el('img', { src: f.url, alt: '', loading: 'lazy', decoding: 'async', onerror: (e) => e.target.parentNode.classList.add('broken') }),
    f.archive ? '' : el('span', { class: 'thumb-nopreview', text: 'No preview' }),
    el('span', { class: 'thumb-name', text: f.file.name, title: f.file.name }),
    el('span', { class: 'thumb-size', text: formatBytes(f.file.size) }),
    el('button', { type: 'button', class: 'thumb-remove', 'aria-label': 'Remove ' + f.file.name, text: '×', onclick: () => removeFile(i) }))));
  $('clear-files').hidden = state.files.length === 0;
  // Without rejected (a chapter's pages were counted), the warnings stand as they were.
  if (rejected) {
    const warn = [];
    if (rejected.length) warn.push(`Not a JPG, PNG, WebP or CBZ, left out: ${rejected.join(', ')}.`);
    state.rejected = warn;
  }
  renderSummary();
}

function renderSummary() {
  const n = pageCount();
  const total = state.files.reduce((s, f) => s + f.file.size, 0);
  $('file-summary').textContent = n === 0 ? 'No pages chosen.' : `${n} page${n === 1 ? '' : 's'}, ${formatBytes(total)} in all.`;
  const cost = credits(n, $('resolution').value, $('mode').value);
  const a = state.account;
  let text = n ? `Cost: ${cost} credit${cost === 1 ? '' : 's'}` : '';
  if (n && a) {
    const have = a.allowanceCredits + a.purchasedCredits;
    text += ` — you have ${have}`;
    $('cost').classList.toggle('short', have < cost);
  } else {
    $('cost').classList.remove('short');
  }
  $('cost').textContent = text;
  const warn = (state.rejected || []).slice();
  if (n > MAX_FILES) warn.push(`At most ${MAX_FILES} pages per upload.`);
  const maxMB = a ? PLAN_MAX_MB[a.plan] : 0;
  if (maxMB) {
    const big = state.files.filter((f) => !f.archive && f.file.size > maxMB * 1024 * 1024).map((f) => f.file.name);
    if (big.length) warn.push(`Larger than your plan's ${maxMB} MB per file: ${big.join(', ')}.`);
  }
  $('file-warnings').textContent = warn.join(' ');
  $('file-warnings').hidden = warn.length === 0;
}

// ---- upload ----
function upload(event) {
  event.preventDefault();
  const box = $('error');
  hideError(box);
  const id = userId();
  if (!id) {
    showError(box, { status: 400, code: '', title: 'User ID missing', text: 'enter your user ID first.' });
    $('user-id').focus();
    return;
  }
  if (state.files.length === 0) {
    showError(box, { status: 400, code: '', title: 'No pages', text: 'choose at least one page image.' });
    return;
  }
  // userId first, so that the server applies the plan's limits while the files stream in.
  const form = new FormData();
  form.append('userId', id);
  form.append('sourceLang', $('source-lang').value);
  form.append('targetLang', $('target-lang').value);
  form.append('mode', $('mode').value);
  form.append('resolution', $('resolution').value);
  const prompt = $('prompt').value.trim();
  if (prompt) form.append('customPrompt', prompt);
  const glossary = $('glossary').value;
  if (glossary.trim()) form.append('glossary', glossary);
  for (const f of state.files) form.append('images', f.file, f.file.name);

  const button = $('upload');
  const status = $('upload-status');
  button.disabled = true;
  status.textContent = 'Uploading…';
  const xhr = new XMLHttpRequest();
  xhr.open('POST', '/api/translate');
  for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
  // One key per click: should this request be retried on the way, the server answers with the
  // job it already started instead of charging for a second one.
  xhr.setRequestHeader('Idempotency-Key', 'web-' + randomKey());
  xhr.upload.addEventListener('progress', (e) => {
    if (e.lengthComputable) status.textContent = `Uploading… ${Math.round((100 * e.loaded) / e.total)}%`;
  });
  xhr.addEventListener('load', () => {
    button.disabled = false;
    let body = null;
    try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
    if (xhr.status >= 200 && xhr.status < 300 && body && body.jobId) {
      status.textContent = `Accepted: ${body.creditsNeeded} credit${body.creditsNeeded === 1 ? '' : 's'} reserved.`;
      rememberJob({ id: body.jobId, userId: id, pages: pageCount(), created: new Date().toISOString(), status: 'pending' });
      clearFiles();
      follow(body.jobId);
      refreshAccount();
      return;
    }
    status.textContent = '';
    const e = body && body.error ? body.error : {};
    showError(box, describeError(xhr.status, e.code, e.message, e.details, xhr.getResponseHeader('Retry-After')));
    if (e.code === 'invalid_glossary') {
      $('glossary-box').open = true;
      $('glossary').focus();
    }
    refreshAccount();
  });
  xhr.addEventListener('error', () => {
    button.disabled = false;
    status.textContent = '';
    showError(box, { status: 0, code: '', title: 'Upload failed', text: 'the connection broke. The server may have refused a file that is too large, or it is not reachable.' });
  });
  xhr.send(form);
}

// ---- following a job ----
function follow(jobId) {
  stopFollowing();
  state.job = { id: jobId, source: null, results: new Map(), deleteArmed: false, done: false, shown: '' };
  const section = $('job');
  section.hidden = false;
  $('job-id').textContent = jobId;
  $('job-status').textContent = 'connecting';
  $('job-status').className = 'badge';
  $('job-progress').value = 0;
  $('job-progress').max = 1;
  $('job-progress-text').textContent = '';
  $('gallery').replaceChildren();
  $('gallery-title').hidden = true;
  $('failure-list').replaceChildren();
  $('failures').hidden = true;
  closeViewer();
  closeEditor();
  $('job-actions').hidden = true;
  hideError($('job-error'));
  resetDelete();
  bringIntoView(section);

  const source = new EventSource('/api/jobs/' + encodeURIComponent(jobId) + '/events');
  state.job.source = source;
  source.onmessage = (e) => {
    let job;
    try { job = JSON.parse(e.data); } catch { return; }
    if (!state.job || state.job.id !== jobId) return;
    renderJob(job);
    if (job.status === 'completed' || job.status === 'failed') {
      source.close();
      state.job.source = null;
      finished(job);
    }
  };
  source.onerror = () => {
    // The browser reconnects by itself unless the answer was not a stream (404, for example).
    if (source.readyState === EventSource.CLOSED && state.job && state.job.id === jobId && !state.job.done) {
      state.job.source = null;
      poll(jobId);
    }
  };
}

function stopFollowing() {
  if (state.job && state.job.source) state.job.source.close();
  state.job = null;
}

// poll reads the job once, for a stream that could not be opened.
async function poll(jobId) {
  try {
    const resp = await fetch('/api/jobs/' + encodeURIComponent(jobId), { headers: authHeaders() });
    if (!state.job || state.job.id !== jobId) return;
    if (!resp.ok) {
      const err = await apiError(resp);
      $('job-status').textContent = resp.status === 404 ? 'deleted' : resp.status === 410 ? 'expired' : 'error';
      showError($('job-error'), err);
      updateRecent(jobId, resp.status === 404 ? 'deleted' : resp.status === 410 ? 'expired' : 'unknown');
      return;
    }
    const job = await resp.json();
    renderJob(job);
    if (job.status === 'completed' || job.status === 'failed') finished(job);
    else setTimeout(() => { if (state.job && state.job.id === jobId && !state.job.source) follow(jobId); }, 2000);
  } catch {
    showError($('job-error'), { status: 0, code: '', title: 'Connection lost', text: 'the service does not answer; reload the page to try again.' });
  }
}

function renderJob(job) {
  const total = job.total || 0;
  const progress = job.progress || 0;
  $('job-status').textContent = job.status;
  $('job-status').className = 'badge ' + job.status;
  const bar = $('job-progress');
  bar.max = Math.max(total, 1);
  bar.value = Math.min(progress, bar.max);
  let text = `${progress} of ${total} page${total === 1 ? '' : 's'} — ${job.status}`;
  if (job.status === 'processing' && job.currentFile) text += ` — now: ${job.currentFile}`;
  const failed = (job.errors || []).length;
  if (failed) text += ` — ${failed} could not be translated`;
  $('job-progress-text').textContent = text;

  const gallery = $('gallery');
  const editable = job.status === 'completed';
  for (const r of job.results || []) {
    if (!r || typeof r.url !== 'string' || !r.url.startsWith('/api/outputs/')) continue;
    const key = pageKey(r);
    const name = r.sourceFilename || r.url.split('/').pop();
    const result = Object.assign({}, r, { name });
    const known = state.job.results.get(key);
    if (known) {
      // An edit re-lettered the page: the same page at a new address.
      if (known.result.url !== r.url) {
        Object.assign(known.result, result);
        known.item.querySelector('img').src = r.url;
      }
      known.item.querySelector('.result-edit').hidden = !editable || !canEdit(r);
      continue;
    }
    const item = el('li', { class: 'result' },
      el('button', { type: 'button', class: 'result-open', 'aria-pressed': 'false', title: 'Show ' + name + ' and its text', onclick: () => showPage(result) },
        el('img', { src: r.url, alt: 'Translated ' + name, loading: 'lazy', decoding: 'async' })),
      el('span', { class: 'result-name', text: name }),
      r.sourceLang ? el('span', { class: 'result-lang muted', text: languageName(r.sourceLang) }) : '',
      el('button', { type: 'button', class: 'secondary small result-edit', text: 'Edit', 'aria-label': 'Edit the text of ' + name, onclick: () => openEditor(result) }));
    item.querySelector('.result-edit').hidden = !editable || !canEdit(r);
    state.job.results.set(key, { item, result });
  }
  // In the server's order (upload order), whatever order the pages finished in.
  for (const r of job.results || []) {
    const known = r && typeof r.url === 'string' && state.job.results.get(pageKey(r));
    if (known) gallery.append(known.item);
  }
  $('gallery-title').hidden = state.job.results.size === 0;

  const errors = job.errors || [];
  $('failure-list').replaceChildren(...errors.map((e) => el('li', {},
    el('strong', { text: e.sourceFilename || 'page' }), el('span', { text: ': ' + (e.message || 'failed') }))));
  $('failures').hidden = errors.length === 0;
  updateRecent(job.id || state.job.id, job.status);
}

// pageKey names a page of the job for as long as the job lives: every re-lettering gives it a new
// address, the same path with a new ?rev=N.
function pageKey(r) {
  return r.url.split(/[?#]/)[0];
}

// canEdit says whether a page can be proofread: the editor needs its transcript and its cleaned
// page to draw on.
function canEdit(r) {
  return sameOrigin(r.transcript) && sameOrigin(r.cleaned);
}

function finished(job) {
  state.job.done = true;
  if (job.status === 'completed') {
    $('download').href = '/api/download/' + encodeURIComponent(job.id || state.job.id);
    $('download-cbz').href = $('download').getAttribute('href') + '?format=cbz';
    $('job-actions').hidden = false;
  } else {
    $('job-actions').hidden = false;
    $('download').hidden = true;
    $('download-cbz').hidden = true;
    if (!(job.errors || []).length) {
      showError($('job-error'), { status: 0, code: '', title: 'Job failed', text: 'no page could be translated; its credits were refunded.' });
    }
  }
  if (job.status === 'completed') $('download').hidden = $('download-cbz').hidden = false;
  refreshAccount();
}

// ---- one page and its transcript ----
function languageName(code) {
  const known = LANGUAGES.find(([c]) => c === code);
  return known ? `${known[1]} (${code})` : code;
}

function sameOrigin(url) {
  return typeof url === 'string' && url.startsWith('/api/outputs/');
}

function closeViewer() {
  $('viewer').hidden = true;
  $('transcript-blocks').replaceChildren();
  if (state.job) state.job.shown = '';
  for (const b of document.querySelectorAll('#gallery .result-open')) b.setAttribute('aria-pressed', 'false');
}

// showPage shows a translated page beside its transcript: the blocks in reading order, each with
// its source, translation, language and confidence, and the downloads of the transcript and the
// cleaned page when the engine produced them.
async function showPage(r) {
  if (!state.job) return;
  const jobId = state.job.id;
  state.job.shown = r.url;
  for (const { item, result } of state.job.results.values()) {
    item.querySelector('.result-open').setAttribute('aria-pressed', String(pageKey(result) === pageKey(r)));
  }
  const edit = $('viewer-edit');
  edit.hidden = !state.job.done || !canEdit(r) || $('job-status').textContent !== 'completed';
  edit.onclick = () => openEditor(r);
  $('viewer').hidden = false;
  $('viewer-title').textContent = r.name;
  $('viewer-img').src = r.url;
  $('viewer-img').alt = 'Translated ' + r.name;
  $('viewer-open').href = r.url;
  const tDownload = $('transcript-download');
  const cDownload = $('cleaned-download');
  tDownload.hidden = !sameOrigin(r.transcript);
  if (!tDownload.hidden) {
    tDownload.href = r.transcript;
    tDownload.setAttribute('download', decodeURIComponent(r.transcript.split('/').pop()));
  }
  cDownload.hidden = !sameOrigin(r.cleaned);
  if (!cDownload.hidden) {
    cDownload.href = r.cleaned;
    cDownload.setAttribute('download', 'cleaned-' + decodeURIComponent(r.cleaned.split('/').pop()));
  }
  const meta = $('transcript-meta');
  const note = $('transcript-note');
  const list = $('transcript-blocks');
  list.replaceChildren();
  meta.textContent = r.sourceLang ? 'Detected language: ' + languageName(r.sourceLang) : '';
  if (!sameOrigin(r.transcript)) {
    note.textContent = 'No transcript: this engine letters the page without keeping its text.';
    return;
  }
  note.textContent = 'Loading the transcript…';
  let t;
  try {
    const resp = await fetch(r.transcript, { headers: authHeaders() });
    if (!resp.ok) {
      const err = await apiError(resp);
      if (state.job && state.job.id === jobId && state.job.shown === r.url) note.textContent = `${err.title}: ${err.text}`;
      return;
    }
    t = await resp.json();
  } catch {
    if (state.job && state.job.id === jobId && state.job.shown === r.url) note.textContent = 'The transcript could not be read.';
    return;
  }
  if (!state.job || state.job.id !== jobId || state.job.shown !== r.url) return; // another page was chosen meanwhile
  renderTranscript(t);
}

function renderTranscript(t) {
  const blocks = Array.isArray(t.blocks) ? t.blocks : [];
  const low = blocks.filter((b) => typeof b.confidence === 'number' && b.confidence < LOW_CONFIDENCE).length;
  const parts = [];
  if (t.sourceLang) parts.push('Detected language: ' + languageName(t.sourceLang));
  parts.push(`${blocks.length} block${blocks.length === 1 ? '' : 's'}`);
  if (low) parts.push(`${low} read with low confidence`);
  if (t.engine) parts.push('engine: ' + t.engine);
  $('transcript-meta').textContent = parts.join(' · ');
  $('transcript-note').textContent = blocks.length ? '' : 'No text was found on this page.';
  $('transcript-blocks').replaceChildren(...blocks.map((b, i) => {
    const conf = typeof b.confidence === 'number' ? b.confidence : 0;
    const isLow = conf < LOW_CONFIDENCE;
    const lang = b.lang || t.sourceLang || '';
    const kind = [b.kind === 'bubble' ? 'bubble' : 'caption / free text', b.vertical ? 'vertical' : ''].filter(Boolean).join(', ');
    const source = el('p', { class: 'block-source', text: b.source || '' });
    if (lang) source.setAttribute('lang', lang);
    const translation = el('p', { class: 'block-translation' + (b.translation ? '' : ' untranslated'), text: b.translation || '(left untranslated)' });
    if (t.targetLang) translation.setAttribute('lang', t.targetLang);
    return el('li', { class: 'block' + (isLow ? ' low' : '') },
      el('div', { class: 'block-head' },
        el('span', { class: 'block-num', text: String(i + 1) }),
        el('span', { class: 'muted', text: kind }),
        el('span', { class: 'block-lang', text: lang ? languageName(lang) : 'language unknown' }),
        el('span', { class: 'block-conf', text: `confidence ${Math.round(conf * 100)}%` + (isLow ? ' — low, check it' : '') })),
      el('div', { class: 'block-text' },
        el('span', { class: 'block-label', text: 'Source' }), source,
        el('span', { class: 'block-label', text: 'Translation' }), translation));
  }));
}

// ---- deleting ----
function resetDelete() {
  const b = $('delete');
  b.textContent = 'Delete project';
  b.disabled = false;
  if (state.job) state.job.deleteArmed = false;
}

async function deleteProject() {
  if (!state.job) return;
  const b = $('delete');
  if (!state.job.deleteArmed) {
    state.job.deleteArmed = true;
    b.textContent = 'Really delete? Click again';
    return;
  }
  const jobId = state.job.id;
  b.disabled = true;
  try {
    const resp = await fetch('/api/projects/' + encodeURIComponent(jobId), {
      method: 'DELETE',
      headers: authHeaders({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ userId: userId() }),
    });
    if (!resp.ok && resp.status !== 404) {
      showError($('job-error'), await apiError(resp));
      resetDelete();
      return;
    }
    updateRecent(jobId, 'deleted');
    stopFollowing();
    $('job').hidden = true;
    $('upload-status').textContent = 'Project deleted.';
    refreshAccount();
  } catch {
    showError($('job-error'), { status: 0, code: '', title: 'Delete failed', text: 'the service does not answer.' });
    resetDelete();
  }
}

// ---- recent jobs ----
function loadRecent() {
  try {
    const v = JSON.parse(storageGet(localStorage, RECENT_KEY) || '[]');
    return Array.isArray(v) ? v.filter((j) => j && typeof j.id === 'string') : [];
  } catch { return []; }
}

function saveRecent(list) {
  storageSet(localStorage, RECENT_KEY, JSON.stringify(list.slice(0, 30)));
  renderRecent();
}

function rememberJob(job) {
  saveRecent([job, ...loadRecent().filter((j) => j.id !== job.id)]);
}

function updateRecent(jobId, status) {
  const list = loadRecent();
  const j = list.find((x) => x.id === jobId);
  if (j && j.status !== status) {
    j.status = status;
    saveRecent(list);
  }
}

function forgetJob(jobId) {
  saveRecent(loadRecent().filter((j) => j.id !== jobId));
}

function renderRecent() {
  const list = loadRecent();
  $('recent-empty').hidden = list.length > 0;
  $('recent').replaceChildren(...list.map((j) => {
    const when = new Date(j.created);
    const status = j.status || 'unknown';
    const gone = status === 'deleted' || status === 'expired';
    return el('li', { class: 'recent-item' },
      el('span', { class: 'badge ' + status, text: status }),
      el('span', { class: 'recent-main' },
        el('code', { text: j.id.slice(0, 8) }),
        el('span', { class: 'muted', text: ` ${j.pages || '?'} page${j.pages === 1 ? '' : 's'} · ${isNaN(when) ? '' : when.toLocaleString()}` })),
      el('span', { class: 'recent-actions' },
        gone ? '' : el('button', { type: 'button', class: 'secondary small', text: 'Open', 'aria-label': 'Open job ' + j.id, onclick: () => follow(j.id) }),
        status === 'completed' ? el('a', { class: 'button secondary small', href: '/api/download/' + encodeURIComponent(j.id), download: '', text: 'ZIP', 'aria-label': 'Download the ZIP of job ' + j.id }) : '',
        el('button', { type: 'button', class: 'secondary small', text: 'Forget', 'aria-label': 'Forget job ' + j.id, onclick: () => forgetJob(j.id) })));
  }));
}

async function refreshRecent() {
  const list = loadRecent();
  await Promise.all(list.map(async (j) => {
    if (j.status === 'deleted' || j.status === 'expired') return;
    try {
      const resp = await fetch('/api/jobs/' + encodeURIComponent(j.id), { headers: authHeaders() });
      if (resp.ok) j.status = (await resp.json()).status || j.status;
      else if (resp.status === 404) j.status = 'deleted';
      else if (resp.status === 410) j.status = 'expired';
    } catch { /* keep what we knew */ }
  }));
  // Merge onto the current list, which may have changed while we asked.
  const now = loadRecent();
  for (const j of now) {
    const fresh = list.find((x) => x.id === j.id);
    if (fresh) j.status = fresh.status;
  }
  saveRecent(now);
}

// ---- start ----
function fillLanguages() {
  const src = $('source-lang');
  const dst = $('target-lang');
  for (const [code, name] of LANGUAGES) {
    src.append(el('option', { value: code, text: `${name} (${code})` }));
    const o = el('option', { value: code, text: `${name} (${code})` });
    if (code === 'en') o.selected = true;
    dst.append(o);
  }
}

function init() {
  fillLanguages();
  $('user-id').value = storageGet(localStorage, USER_KEY);
  $('token').value = storageGet(sessionStorage, TOKEN_KEY);
  let timer = 0;
  $('user-id').addEventListener('input', () => {
    storageSet(localStorage, USER_KEY, userId());
    clearTimeout(timer);
    timer = setTimeout(refreshAccount, 400);
  });
  $('user-id').addEventListener('change', refreshAccount);
  $('token').addEventListener('change', () => {
    storageSet(sessionStorage, TOKEN_KEY, $('token').value.trim());
    refreshAccount();
  });

  $('files').addEventListener('change', (e) => addFiles(e.target.files));
  const drop = $('drop');
  for (const t of ['dragenter', 'dragover']) {
    drop.addEventListener(t, (e) => { e.preventDefault(); drop.classList.add('over'); });
  }
  for (const t of ['dragleave', 'drop']) {
    drop.addEventListener(t, () => drop.classList.remove('over'));
  }
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files) addFiles(e.dataTransfer.files);
  });
  $('clear-files').addEventListener('click', clearFiles);
  $('mode').addEventListener('change', renderSummary);
  $('resolution').addEventListener('change', renderSummary);
  $('upload-form').addEventListener('submit', upload);
  $('delete').addEventListener('click', deleteProject);
  $('viewer-close').addEventListener('click', closeViewer);
  $('recent-refresh').addEventListener('click', refreshRecent);

  renderFiles([]);
  renderRecent();
  refreshAccount();
  refreshRecent();
}

init();
