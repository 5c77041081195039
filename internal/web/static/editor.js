// The proofreading editor: a finished page with its text blocks outlined, a list of the blocks,
// and the fields to change one. Saving sends the edited transcript; the server re-letters the
// page from its cleaned version, and the job's event stream reports the page's new address.
// It shares app.js's helpers ($, el, state, authHeaders, apiError, showError...).
'use strict';

const STATUS_WORDS = {
  found: 'found, not read', read: 'read, not translated', translated: 'translated', lettered: 'lettered',
  skipped: 'skipped — fill it in', keep: 'kept as it was', removed: 'removed', new: 'new',
};
// A drag shorter than this, in screen pixels, is a click, not a new block or a move.
const DRAG_THRESHOLD = 4;
// How long a save waits for its page before saying it takes long, and how often the job is read
// instead when its event stream cannot be opened.
const RELETTER_GIVE_UP_MS = 5 * 60 * 1000;
const RELETTER_POLL_MS = 400;

const editor = {
  page: null,        // the job's result being edited (app.js's result object)
  jobId: '',
  transcript: null,  // as fetched, for the fields the editor does not change
  blocks: [],        // the working copy; added blocks carry added: true until saved
  selected: -1,
  retranslate: new Set(),
  width: 0, height: 0,
  drag: null,
  saving: false,
  dirty: false,      // edits not yet saved
  closeArmed: false, // Close was pressed once with unsaved edits
  generation: 0,     // bumped on every open and close, so late answers are dropped
  stopWaiting: null, // ends the wait for a saved page, when one is under way
};

// pageFile is the {file} of the edit endpoint: the last segment of the page's address.
function pageFile(url) {
  return url.split(/[?#]/)[0].split('/').pop();
}

// requestClose closes the editor, asking a second click first when edits would be lost.
function requestClose() {
  if (editor.dirty && !editor.closeArmed) {
    editor.closeArmed = true;
    $('editor-close').textContent = 'Discard the edits? Click again';
    return;
  }
  closeEditor();
}

function closeEditor() {
  editor.generation++;
  if (editor.stopWaiting) editor.stopWaiting();
  editor.dirty = editor.closeArmed = false;
  $('editor-close').textContent = 'Close the editor';
  editor.page = null;
  editor.saving = false;
  $('editor').hidden = true;
  $('editor-svg').replaceChildren();
  $('editor-blocks').replaceChildren();
}

async function openEditor(r) {
  if (!state.job) return;
  closeViewer();
  if (editor.stopWaiting) editor.stopWaiting();
  const gen = ++editor.generation;
  Object.assign(editor, { page: r, jobId: state.job.id, transcript: null, blocks: [], selected: -1, saving: false, drag: null, dirty: false, closeArmed: false });
  $('editor-close').textContent = 'Close the editor';
  editor.retranslate = new Set();
  $('editor').hidden = false;
  $('editor-title').textContent = 'Edit ' + r.name;
  $('editor-show-cleaned').checked = false;
  $('editor-status').textContent = '';
  hideError($('editor-error'));
  $('editor-note').textContent = 'Loading the transcript…';
  showEditorImage();
  renderEditor();
  bringIntoView($('editor'));
  const t = await loadTranscript(r, gen);
  if (!t) return;
  takeTranscript(t);
  const notes = [];
  if (r.editError) notes.push('The last edit could not be applied: ' + r.editError);
  if (!editor.blocks.length) notes.push('No text was found on this page: drag on the page to add a block.');
  $('editor-note').textContent = notes.join(' ');
  if (editor.blocks.length) selectBlock(0, false);
  renderEditor();
}

// loadTranscript fetches the page's transcript afresh (an edit replaces it at the same address).
async function loadTranscript(r, gen) {
  try {
    const resp = await fetch(r.transcript, { headers: authHeaders(), cache: 'no-store' });
    if (gen !== editor.generation) return null;
    if (!resp.ok) {
      const err = await apiError(resp);
      $('editor-note').textContent = `${err.title}: ${err.text}`;
      return null;
    }
    const t = await resp.json();
    return gen === editor.generation ? t : null;
  } catch {
    if (gen === editor.generation) $('editor-note').textContent = 'The transcript could not be read.';
    return null;
  }
}

function takeTranscript(t) {
  editor.transcript = t;
  editor.blocks = (Array.isArray(t.blocks) ? t.blocks : []).map((b) => Object.assign({}, b, { box: Object.assign({ x: 0, y: 0, w: 1, h: 1 }, b.box) }));
  editor.width = t.width || 0;
  editor.height = t.height || 0;
  editor.retranslate = new Set();
  editor.selected = -1;
}

function showEditorImage() {
  const img = $('editor-img');
  const r = editor.page;
  const cleaned = $('editor-show-cleaned').checked;
  img.src = cleaned ? r.cleaned : r.url;
  img.alt = (cleaned ? 'Cleaned ' : 'Translated ') + r.name;
}

// ---- drawing ----
const SVG_NS = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function statusOf(b) {
  return b.added ? 'new' : (b.status || 'lettered');
}

// pageSize is the page's size in pixels: the transcript's, else the image's once it is loaded.
function pageSize() {
  const img = $('editor-img');
  return { w: editor.width || img.naturalWidth || 1, h: editor.height || img.naturalHeight || 1 };
}

// scale is how many page pixels one screen pixel covers.
function scale() {
  const { w } = pageSize();
  const shown = $('editor-svg').getBoundingClientRect().width;
  return shown > 0 ? w / shown : 1;
}

function renderEditor() {
  renderOutlines();
  renderList();
  renderDetail();
  renderCost();
}

function renderOutlines() {
  const svg = $('editor-svg');
  const { w, h } = pageSize();
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  const k = scale();
  const nodes = editor.blocks.map((b, i) => {
    const g = svgEl('g', { class: 'ebox ' + statusOf(b) + (i === editor.selected ? ' selected' : ''), 'data-i': String(i) });
    g.append(svgEl('rect', { class: 'ebox-rect', x: b.box.x, y: b.box.y, width: b.box.w, height: b.box.h }));
    const label = svgEl('text', { class: 'ebox-num', x: b.box.x + 3 * k, y: b.box.y + 14 * k, 'font-size': 13 * k });
    label.textContent = String(i + 1);
    g.append(label);
    if (i === editor.selected) {
      const s = 10 * k;
      for (const [name, x, y] of [['nw', b.box.x, b.box.y], ['ne', b.box.x + b.box.w, b.box.y],
        ['sw', b.box.x, b.box.y + b.box.h], ['se', b.box.x + b.box.w, b.box.y + b.box.h]]) {
        g.append(svgEl('rect', { class: 'ehandle ' + name, 'data-handle': name, x: x - s / 2, y: y - s / 2, width: s, height: s }));
      }
    }
    return g;
  });
  if (editor.drag && editor.drag.kind === 'add' && editor.drag.moved) {
    const r = editor.drag.box;
    nodes.push(svgEl('rect', { class: 'ebox-draft', x: r.x, y: r.y, width: r.w, height: r.h }));
  }
  svg.replaceChildren(...nodes);
}

function blockLabel(b, i) {
  return `Block ${i + 1}` + (b.kind === 'sfx' ? ' (sound effect)' : '');
}

function renderList() {
  const list = $('editor-blocks');
  list.replaceChildren(...editor.blocks.map((b, i) => {
    const st = statusOf(b);
    const conf = typeof b.confidence === 'number' && !b.added ? `confidence ${Math.round(b.confidence * 100)}%` : '';
    const low = conf && b.confidence < LOW_CONFIDENCE;
    const source = el('span', { class: 'eb-source', text: b.source || '(no source text)' });
    if (b.lang || (editor.transcript && editor.transcript.sourceLang)) source.setAttribute('lang', b.lang || editor.transcript.sourceLang);
    const button = el('button', {
      type: 'button', class: 'eb-item ' + st + (low ? ' low' : ''), 'aria-current': String(i === editor.selected),
      tabindex: i === editor.selected || (editor.selected < 0 && i === 0) ? '0' : '-1', 'data-i': String(i),
      onclick: () => selectBlock(i, true),
    },
    el('span', { class: 'eb-head' },
      el('span', { class: 'block-num', text: blockLabel(b, i) }),
      el('span', { class: 'eb-status ' + st, text: STATUS_WORDS[st] || st }),
      editor.retranslate.has(b.id) ? el('span', { class: 'eb-flag', text: 'to translate again' }) : '',
      conf ? el('span', { class: 'block-conf', text: conf + (low ? ' — low' : '') }) : ''),
    source,
    el('span', { class: 'eb-translation' + (b.translation ? '' : ' untranslated'), text: b.translation || '(no translation)' }));
    return el('li', {}, button);
  }));
}

function renderDetail() {
  const box = $('editor-detail');
  const b = editor.blocks[editor.selected];
  box.hidden = !b;
  if (!b) return;
  const st = statusOf(b);
  $('editor-detail-title').textContent = blockLabel(b, editor.selected);
  const meta = [STATUS_WORDS[st] || st];
  if (b.reason) meta.push(b.reason);
  if (b.kind) meta.push(b.kind === 'bubble' ? 'in a bubble' : b.kind === 'sfx' ? 'sound effect' : 'caption or text on art');
  $('editor-detail-meta').textContent = meta.join(' · ');
  for (const [id, v] of [['ed-source', b.source || ''], ['ed-translation', b.translation || '']]) {
    if ($(id).value !== v) $(id).value = v;
  }
  for (const f of ['x', 'y', 'w', 'h']) {
    const input = $('ed-' + f);
    if (document.activeElement !== input || Number(input.value) !== b.box[f]) input.value = String(b.box[f]);
  }
  const rt = $('ed-retranslate');
  rt.checked = editor.retranslate.has(b.id);
  rt.disabled = !b.id || b.added || st === 'removed' || st === 'keep';
  $('ed-retranslate-help').textContent = b.added
    ? 'A new block is lettered with the translation you type; once saved it can be translated again.'
    : 'From its source text as written above. Costs 1 credit per save, however many blocks are ticked.';
  $('ed-keep').setAttribute('aria-pressed', String(st === 'keep'));
  $('ed-keep').textContent = st === 'keep' ? 'Kept as it was (undo)' : 'Keep as it was';
  $('ed-keep').hidden = !!b.added;
  $('ed-remove').setAttribute('aria-pressed', String(st === 'removed'));
  $('ed-remove').textContent = b.added ? 'Delete this new block' : st === 'removed' ? 'Removed (undo)' : 'Remove';
}

function renderCost() {
  const n = editor.retranslate.size;
  $('editor-cost').textContent = n
    ? `Saving costs 1 credit: ${n} block${n === 1 ? '' : 's'} to translate again.`
    : 'Saving is free.';
  $('editor-save').disabled = editor.saving || !editor.transcript;
}

// ---- choosing and changing blocks ----
function selectBlock(i, focusList) {
  editor.selected = i;
  renderEditor();
  if (focusList) {
    const item = document.querySelector(`#editor-blocks [data-i="${i}"]`);
    if (item) item.focus();
  }
}

function current() {
  return editor.blocks[editor.selected];
}

function changed() {
  editor.dirty = true;
  editor.closeArmed = false;
  $('editor-close').textContent = 'Close the editor';
  $('editor-status').textContent = '';
  renderOutlines();
  renderList();
  renderCost();
}

// moveBox gives a block a new box inside the page, carrying its shape along (moved and
// stretched as the box is), so that a bubble's interior follows its bubble.
function moveBox(b, box) {
  const { w: pw, h: ph } = pageSize();
  const n = {};
  n.w = Math.max(1, Math.min(Math.round(box.w), pw));
  n.h = Math.max(1, Math.min(Math.round(box.h), ph));
  n.x = Math.max(0, Math.min(Math.round(box.x), pw - n.w));
  n.y = Math.max(0, Math.min(Math.round(box.y), ph - n.h));
  const o = b.box;
  if (Array.isArray(b.shape) && b.shape.length && o.w > 0 && o.h > 0) {
    b.shape = b.shape.map((p) => ({
      x: Math.round(n.x + ((p.x - o.x) * n.w) / o.w),
      y: Math.round(n.y + ((p.y - o.y) * n.h) / o.h),
    }));
  }
  b.box = n;
}

function corners(box) {
  return [{ x: box.x, y: box.y }, { x: box.x + box.w, y: box.y }, { x: box.x + box.w, y: box.y + box.h }, { x: box.x, y: box.y + box.h }];
}

function addBlock(box) {
  const t = editor.transcript || {};
  const b = { added: true, status: 'found', kind: 'bubble', vertical: false, lang: t.sourceLang || '', source: '', translation: '', confidence: 1, box: { x: 0, y: 0, w: 1, h: 1 } };
  b.box = Object.assign({}, box);
  moveBox(b, box);
  b.shape = corners(b.box);
  editor.blocks.push(b);
  editor.dirty = true;
  editor.selected = editor.blocks.length - 1;
  renderEditor();
  $('editor-status').textContent = `Block ${editor.selected + 1} added: type its text.`;
  $('ed-translation').focus();
}

function toggleStatus(to) {
  const b = current();
  if (!b) return;
  editor.dirty = true;
  if (b.added && to === 'removed') {
    editor.blocks.splice(editor.selected, 1);
    editor.selected = Math.min(editor.selected, editor.blocks.length - 1);
    renderEditor();
    return;
  }
  if (b.status === to) {
    b.status = b.previousStatus || 'lettered';
    delete b.previousStatus;
  } else {
    if (b.status !== 'keep' && b.status !== 'removed') b.previousStatus = b.status;
    b.status = to;
    editor.retranslate.delete(b.id);
  }
  renderEditor();
}

// ---- the mouse (or a finger) on the page ----
function pagePoint(e) {
  const r = $('editor-svg').getBoundingClientRect();
  const { w, h } = pageSize();
  return {
    x: Math.max(0, Math.min(w, ((e.clientX - r.left) * w) / r.width)),
    y: Math.max(0, Math.min(h, ((e.clientY - r.top) * h) / r.height)),
  };
}

function pointerDown(e) {
  if (e.button !== 0 || !editor.transcript || editor.saving) return;
  const p = pagePoint(e);
  const handle = e.target.closest('[data-handle]');
  const g = e.target.closest('g.ebox');
  let drag;
  if (handle && editor.selected >= 0) {
    drag = { kind: 'resize', handle: handle.dataset.handle, box: Object.assign({}, current().box) };
  } else if (g) {
    const i = Number(g.dataset.i);
    if (i !== editor.selected) selectBlock(i, false);
    drag = { kind: 'move', box: Object.assign({}, current().box) };
  } else {
    drag = { kind: 'add', box: { x: p.x, y: p.y, w: 0, h: 0 } };
  }
  Object.assign(drag, { start: p, sx: e.clientX, sy: e.clientY, moved: false, pointer: e.pointerId });
  editor.drag = drag;
  $('editor-svg').setPointerCapture(e.pointerId);
  e.preventDefault();
}

function pointerMove(e) {
  const d = editor.drag;
  if (!d || e.pointerId !== d.pointer) return;
  if (!d.moved && Math.hypot(e.clientX - d.sx, e.clientY - d.sy) < DRAG_THRESHOLD) return;
  d.moved = true;
  const p = pagePoint(e);
  const dx = p.x - d.start.x, dy = p.y - d.start.y;
  if (d.kind === 'add') {
    d.box = { x: Math.min(p.x, d.start.x), y: Math.min(p.y, d.start.y), w: Math.abs(dx), h: Math.abs(dy) };
    renderOutlines();
    return;
  }
  const o = d.box;
  let box;
  if (d.kind === 'move') {
    box = { x: o.x + dx, y: o.y + dy, w: o.w, h: o.h };
  } else {
    let [x0, y0, x1, y1] = [o.x, o.y, o.x + o.w, o.y + o.h];
    if (d.handle.includes('w')) x0 += dx; else x1 += dx;
    if (d.handle.includes('n')) y0 += dy; else y1 += dy;
    box = { x: Math.min(x0, x1), y: Math.min(y0, y1), w: Math.max(1, Math.abs(x1 - x0)), h: Math.max(1, Math.abs(y1 - y0)) };
  }
  moveBox(current(), box);
  changed();
  renderDetail();
}

function pointerUp(e) {
  const d = editor.drag;
  if (!d || e.pointerId !== d.pointer) return;
  editor.drag = null;
  if (d.kind === 'add') {
    const k = scale();
    if (d.moved && d.box.w >= 8 * k && d.box.h >= 8 * k) addBlock(d.box);
    else if (!d.moved) selectBlock(-1, false);
    else renderOutlines();
  }
}

// Arrow keys move through the list, as in a list box; Tab leaves it. Delete removes the block
// (or brings it back).
function listKeys(e) {
  const n = editor.blocks.length;
  if (!n) return;
  if (e.key === 'Delete' && editor.selected >= 0) {
    e.preventDefault();
    toggleStatus('removed');
    selectBlock(Math.min(editor.selected, editor.blocks.length - 1), true);
    return;
  }
  const i = editor.selected < 0 ? 0 : editor.selected;
  const to = { ArrowDown: Math.min(n - 1, i + 1), ArrowUp: Math.max(0, i - 1), Home: 0, End: n - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  selectBlock(to, true);
}

// ---- saving ----
// editedTranscript is what the server is sent: the transcript as fetched, with the edited blocks
// (added blocks without an id: the server names them).
function editedTranscript() {
  const blocks = editor.blocks.map((b) => {
    const out = Object.assign({}, b);
    delete out.added;
    delete out.previousStatus;
    if (b.added) delete out.id;
    return out;
  });
  return Object.assign({}, editor.transcript, { blocks });
}

function editRequest() {
  const body = { userId: userId(), transcript: editedTranscript() };
  const ids = editor.blocks.filter((b) => b.id && editor.retranslate.has(b.id)).map((b) => b.id);
  if (ids.length) body.retranslate = ids;
  return body;
}

async function save() {
  if (!editor.transcript || editor.saving) return;
  const box = $('editor-error');
  hideError(box);
  if (!userId()) {
    showError(box, { status: 400, code: '', title: 'User ID missing', text: 'enter your user ID first.' });
    return;
  }
  const gen = editor.generation;
  const r = editor.page;
  const status = $('editor-status');
  editor.saving = true;
  editor.closeArmed = false;
  $('editor-close').textContent = 'Close the editor';
  renderCost();
  status.textContent = 'Sending…';
  let accepted;
  try {
    const resp = await fetch(`/api/jobs/${encodeURIComponent(editor.jobId)}/pages/${pageFile(r.url)}/transcript`, {
      method: 'PUT', headers: authHeaders({ 'Content-Type': 'application/json' }), body: JSON.stringify(editRequest()),
    });
    if (gen !== editor.generation) return;
    if (!resp.ok) {
      const err = await apiError(resp);
      if (err.code === 'edit_in_progress') err.text += ' Wait until the page shows its new version, then save again.';
      fail(err);
      return;
    }
    accepted = await resp.json();
  } catch {
    if (gen === editor.generation) fail({ status: 0, code: '', title: 'Save failed', text: 'the service does not answer; your edits are still here, try again.' });
    return;
  }
  status.textContent = 'Re-lettering…';
  const { job, error } = await waitForRevision(gen, pageKey(r), accepted.revision, r.editError || '');
  if (gen !== editor.generation) return;
  if (error) {
    fail(error);
    return;
  }
  if (!job) return;
  const fresh = (job.results || []).find((x) => x && pageKey(x) === pageKey(r));
  if (!fresh || (fresh.revision || 0) < accepted.revision) {
    fail({ status: 0, code: '', title: 'The page could not be re-lettered', text: String((fresh && fresh.editError) || 'the page is gone from the job.') });
    return;
  }
  renderJob(job); // the gallery shows the new version too
  Object.assign(r, fresh);
  showEditorImage();
  const t = await loadTranscript(r, gen);
  if (!t) return;
  takeTranscript(t);
  editor.saving = editor.dirty = editor.closeArmed = false;
  $('editor-close').textContent = 'Close the editor';
  if (editor.blocks.length) editor.selected = 0;
  renderEditor();
  status.textContent = `Saved: the page is re-lettered (version ${fresh.revision}).`;
  refreshAccount();
}

function fail(err) {
  editor.saving = false;
  $('editor-status').textContent = '';
  showError($('editor-error'), err);
  renderCost();
}

// jobSettled says whether a state of the job is the last its stream sends: finished, and no page
// being edited.
function jobSettled(job) {
  return (job.status === 'completed' || job.status === 'failed') && !(job.results || []).some((x) => x && x.editing);
}

// waitForRevision follows the job's event stream, as app.js follows its progress, until the page
// shows the revision the server accepted or the edit is over without it (its editError says why),
// and returns that state of the job as {job}; {error} when the page takes too long; {} once the
// editor closed. The server keeps a finished job's stream open while one of its pages is edited
// and ends it after the message showing the outcome, which it read after the stream opened.
function waitForRevision(gen, key, revision, oldError) {
  return new Promise((resolve) => {
    const source = new EventSource('/api/jobs/' + encodeURIComponent(editor.jobId) + '/events');
    let last = null;      // the job as the stream's last message showed it
    let applying = false; // a message showed this revision being applied
    let over = false;
    const end = () => {
      over = true;
      source.close();
      clearTimeout(timer);
      editor.stopWaiting = null;
    };
    const finish = (outcome) => {
      if (over) return;
      end();
      resolve(gen === editor.generation ? outcome : {});
    };
    const timer = setTimeout(() => finish({ error: tooLong }), RELETTER_GIVE_UP_MS);
    editor.stopWaiting = () => finish({});
    source.onmessage = (e) => {
      let job;
      try { job = JSON.parse(e.data); } catch { return; }
      last = job;
      const page = (job.results || []).find((x) => x && pageKey(x) === key);
      if (!page || (page.revision || 0) >= revision) finish({ job });
      else if (page.editing === revision) applying = true;
      else if (applying) finish({ job }); // no longer applied, and not made: it failed
    };
    source.onerror = () => {
      if (over) return;
      if (source.readyState === EventSource.CLOSED) {
        // The fallback, for a stream that cannot be opened at all (a 429 too_many_streams, a
        // proxy refusing it): read the job's state until the page settles.
        end();
        pollForRevision(gen, key, revision, oldError).then(resolve);
        return;
      }
      // The server ended the stream after its last message, which shows the edit over (an edit
      // done before the stream's first message shows up only so); otherwise the connection
      // broke and the browser opens it again by itself.
      if (last && jobSettled(last)) finish({ job: last });
    };
  });
}

// pollForRevision reads the job until the page shows the revision the server accepted, or says
// why it could not be made (an editError once the edit is no longer being applied, or one other
// than the page had before this save), answering as waitForRevision does. Only for a job whose
// stream cannot be opened.
async function pollForRevision(gen, key, revision, oldError) {
  const until = Date.now() + RELETTER_GIVE_UP_MS;
  let applying = false;
  while (gen === editor.generation) {
    if (Date.now() > until) return { error: tooLong };
    try {
      const resp = await fetch('/api/jobs/' + encodeURIComponent(editor.jobId), { headers: authHeaders(), cache: 'no-store' });
      if (gen !== editor.generation) return {};
      if (!resp.ok) return { error: await apiError(resp) };
      const job = await resp.json();
      const page = (job.results || []).find((x) => x && pageKey(x) === key);
      if (page && page.editing >= revision) applying = true;
      if (!page || (page.revision || 0) >= revision ||
        (page.editError && (page.editError !== oldError || (applying && !page.editing)))) return { job };
    } catch { /* the next round tries again */ }
    await new Promise((ok) => setTimeout(ok, RELETTER_POLL_MS));
  }
  return {};
}

const tooLong = { status: 0, code: '', title: 'Still re-lettering', text: 'the page is taking long; reopen it later to see the result.' };

// ---- wiring ----
function numberField(f) {
  return () => {
    const b = current();
    const v = Number($('ed-' + f).value);
    if (!b || !Number.isFinite(v)) return;
    moveBox(b, Object.assign({}, b.box, { [f]: v }));
    changed();
  };
}

function initEditor() {
  $('editor-close').addEventListener('click', requestClose);
  $('editor-show-cleaned').addEventListener('change', showEditorImage);
  $('editor-img').addEventListener('load', renderOutlines);
  const svg = $('editor-svg');
  svg.addEventListener('pointerdown', pointerDown);
  svg.addEventListener('pointermove', pointerMove);
  svg.addEventListener('pointerup', pointerUp);
  svg.addEventListener('pointercancel', () => { editor.drag = null; renderOutlines(); });
  $('editor-blocks').addEventListener('keydown', listKeys);
  $('ed-source').addEventListener('input', () => { const b = current(); if (b) { b.source = $('ed-source').value; changed(); } });
  $('ed-translation').addEventListener('input', () => { const b = current(); if (b) { b.translation = $('ed-translation').value; changed(); } });
  for (const f of ['x', 'y', 'w', 'h']) {
    $('ed-' + f).addEventListener('input', numberField(f));
    $('ed-' + f).addEventListener('change', renderDetail); // shows the value as clamped to the page
  }
  $('ed-retranslate').addEventListener('change', () => {
    const b = current();
    if (!b || !b.id) return;
    if ($('ed-retranslate').checked) editor.retranslate.add(b.id); else editor.retranslate.delete(b.id);
    changed();
  });
  $('ed-keep').addEventListener('click', () => toggleStatus('keep'));
  $('ed-remove').addEventListener('click', () => toggleStatus('removed'));
  $('editor-add').addEventListener('click', () => {
    // For the keyboard: a box in the middle of the page, to place with the number fields.
    const { w, h } = pageSize();
    addBlock({ x: w * 0.4, y: h * 0.4, w: w * 0.2, h: h * 0.1 });
  });
  $('editor-save').addEventListener('click', save);
  // Handles and labels are sized in screen pixels: redraw when the page is shown at a new size.
  if (window.ResizeObserver) new ResizeObserver(() => { if (editor.page) renderOutlines(); }).observe($('editor-stage'));
}

initEditor();
