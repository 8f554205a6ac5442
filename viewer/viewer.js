// Soma viewer: plays a run's VTK frames (a .pvd collection of .vtu files, as the `vtk` output
// writes them: plugins/outputs/vtk_frames.cpp, vtu_file.cpp) with three.js r111 (Debian's
// libjs-three, copied next to this file by CMake). Served by `soma view` (kernel/cli/view_command.cpp):
// the page at /, the run's folder at data/.
//
// Drawn: line cells (rods, GVS backbones) as tubes of their points' `radius`, triangles (shells,
// rigid bodies' shapes) as surfaces, vertex cells (particles, a body's centre) as small spheres.
//
// Query parameters: pvd=NAME.pvd (default frames.pvd), frame=K (negative: from the end),
// field=NAME (colour), snapshot=1 (draw frame K once and GET __report?state=drawn, for
// `soma view --snapshot`), check=1 (load every frame and write a JSON summary into #check, for
// tests/viewer).
import * as THREE from './three/build/three.module.js';
import { OrbitControls } from './three/examples/jsm/controls/OrbitControls.js';

const params = new URLSearchParams(location.search);
const snapshotMode = params.get('snapshot') === '1';
const checkMode = params.get('check') === '1';
const collectionUrl = new URL('data/' + (params.get('pvd') || 'frames.pvd'), location.href);
const background = 0xf4f5f7;
const $ = (id) => document.getElementById(id);

// ---- reading the files ------------------------------------------------------------------------

/** The .pvd collection: [{time, url}] in file order. */
async function loadCollection(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  const xml = new DOMParser().parseFromString(await response.text(), 'application/xml');
  if (xml.querySelector('parsererror')) throw new Error(`${url.pathname}: not well-formed XML`);
  return [...xml.getElementsByTagName('DataSet')].map((set) => ({
    time: Number(set.getAttribute('timestep')),
    url: new URL(set.getAttribute('file'), url),
  }));
}

const vtkTypes = {
  Float64: [8, 'getFloat64'], Float32: [4, 'getFloat32'], Int64: [8, 'getBigInt64'],
  UInt64: [8, 'getBigUint64'], Int32: [4, 'getInt32'], UInt32: [4, 'getUint32'],
  Int16: [2, 'getInt16'], UInt16: [2, 'getUint16'], Int8: [1, 'getInt8'], UInt8: [1, 'getUint8'],
};

/** Index of an ASCII `pattern` in `bytes`, or -1. */
function findBytes(bytes, pattern) {
  const first = pattern.charCodeAt(0);
  for (let i = bytes.indexOf(first); i >= 0; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < pattern.length && bytes[i + j] === pattern.charCodeAt(j)) ++j;
    if (j === pattern.length) return i;
  }
  return -1;
}

/**
 * A VTK XML UnstructuredGrid (.vtu), ascii or raw appended data (each array preceded by its byte
 * count, UInt64 or UInt32 per header_type): points, cells and the point and cell arrays.
 */
function parseVtu(buffer, name) {
  const bytes = new Uint8Array(buffer);
  const appendedAt = findBytes(bytes, '<AppendedData');
  let text, dataStart = -1;
  if (appendedAt >= 0) {
    // The raw bytes start after the '_' that follows the AppendedData tag.
    dataStart = bytes.indexOf(95, findBytes(bytes.subarray(appendedAt), '>') + appendedAt) + 1;
    text = new TextDecoder().decode(bytes.subarray(0, appendedAt)) + '</VTKFile>';
  } else {
    text = new TextDecoder().decode(bytes);
  }
  const xml = new DOMParser().parseFromString(text, 'application/xml');
  if (xml.querySelector('parsererror')) throw new Error(`${name}: not well-formed XML`);
  const root = xml.documentElement;
  if (root.getAttribute('type') !== 'UnstructuredGrid') throw new Error(`${name}: not a VTK UnstructuredGrid`);
  const little = root.getAttribute('byte_order') !== 'BigEndian';
  const header = root.getAttribute('header_type') === 'UInt64' ? 8 : 4;
  const view = new DataView(buffer);

  const read = (array) => {
    const type = array.getAttribute('type');
    const components = Number(array.getAttribute('NumberOfComponents') || 1);
    const format = array.getAttribute('format');
    const label = `${name}: DataArray '${array.getAttribute('Name')}'`;
    if (format === 'ascii') {
      const words = array.textContent.trim().split(/\s+/).filter((w) => w.length);
      return { components, values: Float64Array.from(words, Number) };
    }
    if (format !== 'appended' || dataStart < 0) throw new Error(`${label}: format '${format}' is not supported (ascii or raw appended)`);
    if (!(type in vtkTypes)) throw new Error(`${label}: type '${type}' is not supported`);
    const [size, getter] = vtkTypes[type];
    let at = dataStart + Number(array.getAttribute('offset'));
    const byteCount = header === 8 ? Number(view.getBigUint64(at, little)) : view.getUint32(at, little);
    at += header;
    if (at + byteCount > buffer.byteLength) throw new Error(`${label}: the data runs past the end of the file`);
    const values = new Float64Array(byteCount / size);
    for (let i = 0; i < values.length; ++i, at += size) values[i] = Number(view[getter](at, little));
    return { components, values };
  };
  const arrays = (parent) => {
    const out = new Map();
    if (!parent) return out;
    for (const a of parent.children) if (a.tagName === 'DataArray') out.set(a.getAttribute('Name'), read(a));
    return out;
  };
  const piece = root.getElementsByTagName('Piece')[0];
  if (!piece) throw new Error(`${name}: no <Piece>`);
  const pointCount = Number(piece.getAttribute('NumberOfPoints'));
  const cellCount = Number(piece.getAttribute('NumberOfCells'));
  const pointsArray = piece.getElementsByTagName('Points')[0]?.getElementsByTagName('DataArray')[0];
  const points = pointsArray ? read(pointsArray).values : new Float64Array(0);
  const cells = arrays(piece.getElementsByTagName('Cells')[0]);
  const frame = {
    name, pointCount, cellCount, points,
    connectivity: cells.get('connectivity')?.values ?? new Float64Array(0),
    offsets: cells.get('offsets')?.values ?? new Float64Array(0),
    types: cells.get('types')?.values ?? new Float64Array(0),
    pointData: arrays(piece.getElementsByTagName('PointData')[0]),
    cellData: arrays(piece.getElementsByTagName('CellData')[0]),
  };
  if (points.length !== 3 * pointCount || frame.types.length !== cellCount || frame.offsets.length !== cellCount)
    throw new Error(`${name}: ${pointCount} points and ${cellCount} cells announced, arrays of other sizes found`);
  return frame;
}

async function loadFrame(entry) {
  const response = await fetch(entry.url);
  if (!response.ok) throw new Error(`${entry.url.pathname}: HTTP ${response.status}`);
  return parseVtu(await response.arrayBuffer(), decodeURIComponent(entry.url.pathname.replace(/^\/data\//, '')));
}

// ---- colours ----------------------------------------------------------------------------------

const palette = [0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf]
  .map((c) => new THREE.Color(c));
const viridis = [[0.267, 0.005, 0.329], [0.229, 0.322, 0.546], [0.128, 0.567, 0.551], [0.369, 0.789, 0.383], [0.993, 0.906, 0.144]];

function colourMap(s) {
  const x = Math.min(Math.max(s, 0), 1) * (viridis.length - 1);
  const i = Math.min(Math.floor(x), viridis.length - 2), f = x - i;
  return viridis[i].map((a, k) => a + f * (viridis[i + 1][k] - a));
}

/** A point's scalar for `field`: the value, or the magnitude of a vector. */
function scalar(frame, field, p) {
  const array = frame.pointData.get(field);
  if (!array) return 0;
  const n = array.components;
  if (n === 1) return array.values[p];
  let sum = 0;
  for (let k = 0; k < n; ++k) sum += array.values[n * p + k] ** 2;
  return Math.sqrt(sum);
}

/** RGB of every point: by element (categorical), by a point field over [lo, hi], or grey. */
function pointColours(frame, field, range) {
  const colours = new Float32Array(3 * frame.pointCount);
  const elements = frame.pointData.get('element_id');
  for (let p = 0; p < frame.pointCount; ++p) {
    let rgb;
    if (field === 'element') {
      const c = palette[elements ? elements.values[p] % palette.length : 0];
      rgb = [c.r, c.g, c.b];
    } else if (field === 'none') {
      rgb = [0.7, 0.7, 0.72];
    } else {
      const [lo, hi] = range;
      rgb = colourMap(hi > lo ? (scalar(frame, field, p) - lo) / (hi - lo) : 0.5);
    }
    colours.set(rgb, 3 * p);
  }
  return colours;
}

// ---- geometry ---------------------------------------------------------------------------------

const tubeSides = 12;

/** Cells of `frame` as lists of point indices, grouped by VTK type (1 vertex, 3 line, 5 triangle). */
function cellsByType(frame) {
  const out = { vertices: [], lines: [], triangles: [] };
  let start = 0;
  for (let c = 0; c < frame.cellCount; ++c) {
    const end = frame.offsets[c];
    const ids = Array.from(frame.connectivity.subarray(start, end));
    start = end;
    const type = frame.types[c];
    if (type === 1 || type === 2) for (const p of ids) out.vertices.push(p);  // vertex, poly-vertex
    else if (type === 3 || type === 4) out.lines.push(ids);                  // line, poly-line
    else if (type === 5) out.triangles.push(ids);
    else if (type === 7 || type === 9) for (let k = 1; k + 1 < ids.length; ++k) out.triangles.push([ids[0], ids[k], ids[k + 1]]);
  }
  return out;
}

/** Consecutive line cells that share their end points joined into polylines (a rod's edges). */
function polylines(lines) {
  const out = [];
  let current = null;
  for (const ids of lines) {
    if (current && current[current.length - 1] === ids[0]) current.push(...ids.slice(1));
    else out.push(current = [...ids]);
  }
  return out;
}

/** Arrays a mesh is built from: positions, normals, colours, triangle indices. */
class MeshBuffers {
  constructor() { this.position = []; this.normal = []; this.color = []; this.index = []; }
  vertex(p, n, c) { this.position.push(p.x, p.y, p.z); this.normal.push(n.x, n.y, n.z); this.color.push(c[0], c[1], c[2]); return this.position.length / 3 - 1; }
  geometry() {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(this.position, 3));
    g.setAttribute('normal', new THREE.Float32BufferAttribute(this.normal, 3));
    g.setAttribute('color', new THREE.Float32BufferAttribute(this.color, 3));
    g.setIndex(this.index);
    return g;
  }
}

/** A tube along `ids` of radius `radius(p)`, rings carried along by parallel transport, capped. */
function addTube(buffers, ids, point, radius, colour) {
  const n = ids.length;
  const P = ids.map(point);
  const tangents = P.map((p, i) => {
    const t = new THREE.Vector3();
    if (i > 0) t.add(p.clone().sub(P[i - 1]).normalize());
    if (i + 1 < n) t.add(P[i + 1].clone().sub(p).normalize());
    return t.lengthSq() > 0 ? t.normalize() : new THREE.Vector3(1, 0, 0);
  });
  const t0 = tangents[0];
  let normal = new THREE.Vector3(Math.abs(t0.x) < 0.9 ? 1 : 0, Math.abs(t0.x) < 0.9 ? 0 : 1, 0);
  normal.sub(t0.clone().multiplyScalar(normal.dot(t0))).normalize();
  const rings = [];
  for (let i = 0; i < n; ++i) {
    const t = tangents[i];
    const transported = normal.clone().sub(t.clone().multiplyScalar(normal.dot(t)));
    if (transported.lengthSq() > 1e-12) normal = transported.normalize();
    const binormal = new THREE.Vector3().crossVectors(t, normal);
    const ring = [];
    for (let s = 0; s < tubeSides; ++s) {
      const a = (2 * Math.PI * s) / tubeSides;
      const dir = normal.clone().multiplyScalar(Math.cos(a)).add(binormal.clone().multiplyScalar(Math.sin(a)));
      ring.push(buffers.vertex(P[i].clone().add(dir.clone().multiplyScalar(radius(ids[i]))), dir, colour(ids[i])));
    }
    rings.push(ring);
  }
  for (let i = 0; i + 1 < n; ++i)
    for (let s = 0; s < tubeSides; ++s) {
      const a = rings[i][s], b = rings[i][(s + 1) % tubeSides], c = rings[i + 1][s], d = rings[i + 1][(s + 1) % tubeSides];
      buffers.index.push(a, b, d, a, d, c);
    }
  for (const [i, sign] of [[0, -1], [n - 1, 1]]) {  // flat end caps
    const axis = tangents[i].clone().multiplyScalar(sign);
    const centre = buffers.vertex(P[i], axis, colour(ids[i]));
    const first = buffers.position.length / 3;
    for (const v of rings[i]) buffers.vertex(new THREE.Vector3().fromArray(buffers.position, 3 * v), axis, colour(ids[i]));
    for (let s = 0; s < tubeSides; ++s) {
      const a = first + s, b = first + ((s + 1) % tubeSides);
      if (sign > 0) buffers.index.push(centre, a, b); else buffers.index.push(centre, b, a);
    }
  }
}

const unitSphere = new THREE.IcosahedronBufferGeometry(1, 1);

function addSphere(buffers, centre, r, rgb) {
  const pos = unitSphere.getAttribute('position');
  for (let v = 0; v < pos.count; v += 3) {
    const ids = [0, 1, 2].map((k) => {
      const n = new THREE.Vector3().fromBufferAttribute(pos, v + k);
      return buffers.vertex(centre.clone().add(n.clone().multiplyScalar(r)), n, rgb);
    });
    buffers.index.push(...ids);
  }
}

const material = new THREE.MeshPhongMaterial({ vertexColors: THREE.VertexColors, side: THREE.DoubleSide, shininess: 30 });

/** Bounds of a frame's points (empty when it has none). */
function frameBox(frame) {
  const box = new THREE.Box3();
  const p = new THREE.Vector3();
  for (let i = 0; i < frame.pointCount; ++i) box.expandByPoint(p.fromArray(frame.points, 3 * i));
  return box;
}

/** The frame as one mesh: tubes, surfaces and spheres. `size` is the scene's diagonal. */
function frameMesh(frame, colours, size) {
  const cells = cellsByType(frame);
  const radii = frame.pointData.get('radius');
  const fallback = 0.004 * (size || 1);  // elements without a radius (shell nodes, body points)
  const radius = (p) => (radii && radii.values[p] > 0 ? radii.values[p] : fallback);
  const point = (p) => new THREE.Vector3().fromArray(frame.points, 3 * p);
  const colour = (p) => [colours[3 * p], colours[3 * p + 1], colours[3 * p + 2]];
  const buffers = new MeshBuffers();
  for (const line of polylines(cells.lines)) addTube(buffers, line, point, radius, colour);
  if (cells.triangles.length) {
    // Shared points, normals averaged over their triangles.
    const surface = new THREE.BufferGeometry();
    surface.setAttribute('position', new THREE.Float32BufferAttribute(Float32Array.from(frame.points), 3));
    surface.setIndex(cells.triangles.flat());
    surface.computeVertexNormals();
    const normals = surface.getAttribute('normal');
    const used = new Map();
    for (const tri of cells.triangles)
      for (const p of tri) {
        if (!used.has(p)) used.set(p, buffers.vertex(point(p), new THREE.Vector3().fromBufferAttribute(normals, p), colour(p)));
        buffers.index.push(used.get(p));
      }
    surface.dispose();
  }
  for (const p of cells.vertices) addSphere(buffers, point(p), Math.max(radius(p), 2 * fallback), colour(p));
  return new THREE.Mesh(buffers.geometry(), material);
}

// ---- the page ---------------------------------------------------------------------------------

// A snapshot draws at the size asked (width, height), not the window's: headless Chromium's
// viewport is smaller than its --window-size, and its screenshot is the window's size.
const fixedSize = snapshotMode && params.get('width') ? [Number(params.get('width')), Number(params.get('height'))] : null;
const viewSize = () => fixedSize ?? [window.innerWidth, window.innerHeight];
if (fixedSize) {
  document.body.classList.add('snapshot');
  Object.assign(document.body.style, { width: `${fixedSize[0]}px`, height: `${fixedSize[1]}px` });
}
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(fixedSize ? 1 : window.devicePixelRatio);
renderer.setSize(...viewSize());
renderer.setClearColor(background);
$('view').appendChild(renderer.domElement);
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(35, viewSize()[0] / viewSize()[1], 1e-4, 1e4);
camera.up.set(0, 0, 1);  // scenes are z-up (gravity along -z)
scene.add(new THREE.HemisphereLight(0xffffff, 0xa0a0b0, 0.75));
const headlight = new THREE.DirectionalLight(0xffffff, 0.55);
camera.add(headlight, headlight.target);  // a light fixed to the camera: lit from where you look
headlight.position.set(0.4, 0.8, 0);
headlight.target.position.set(0, 0, -1);
scene.add(camera);
const controls = new OrbitControls(camera, renderer.domElement);

const state = { entries: [], frames: [], index: 0, field: 'element', playing: false, simTime: 0, box: new THREE.Box3(), mesh: null, grid: null };

function formatTime(t) { return `t = ${Number(t.toPrecision(6))} s`; }

/** Points the camera at `box` from the front-left, above, so it fills the view. */
function frameCamera(box) {
  const centre = new THREE.Vector3(), size = new THREE.Vector3();
  if (box.isEmpty()) { centre.set(0, 0, 0); size.set(1, 1, 1); } else { box.getCenter(centre); box.getSize(size); }
  const radius = Math.max(size.length() / 2, 1e-3);
  const halfFov = THREE.Math.degToRad(camera.fov / 2);
  const fit = Math.min(Math.tan(halfFov), Math.tan(halfFov) * camera.aspect);
  const distance = (1.1 * radius) / Math.sin(Math.atan(fit));
  const direction = new THREE.Vector3(0.45, -1, 0.55).normalize();
  camera.position.copy(centre).addScaledVector(direction, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  if (state.grid) { scene.remove(state.grid); state.grid.geometry.dispose(); state.grid = null; }
  if (!box.isEmpty()) {  // a floor grid under the scene, for depth
    const extent = 2 * Math.max(size.x, size.y, 0.5 * size.z, 1e-3);
    state.grid = new THREE.GridHelper(extent, 20, 0xb8bcc8, 0xd8dbe3);
    state.grid.rotation.x = Math.PI / 2;
    state.grid.position.set(centre.x, centre.y, box.min.z - 1e-3 * extent);
    scene.add(state.grid);
  }
}

/** [lo, hi] of a field over the loaded frames. */
function fieldRange(field) {
  let lo = Infinity, hi = -Infinity;
  for (const frame of state.frames) {
    if (!frame) continue;
    for (let p = 0; p < frame.pointCount; ++p) {
      const v = scalar(frame, field, p);
      lo = Math.min(lo, v); hi = Math.max(hi, v);
    }
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

function showFrame(index) {
  state.index = index;
  const frame = state.frames[index];
  if (state.mesh) { scene.remove(state.mesh); state.mesh.geometry.dispose(); state.mesh = null; }
  if (frame) {
    const range = ['element', 'none'].includes(state.field) ? null : fieldRange(state.field);
    state.mesh = frameMesh(frame, pointColours(frame, state.field, range), state.box.isEmpty() ? 1 : state.box.getSize(new THREE.Vector3()).length());
    scene.add(state.mesh);
    $('legend').textContent = range ? `${Number(range[0].toPrecision(3))} … ${Number(range[1].toPrecision(3))}` : '';
  }
  $('scrub').value = String(index);
  $('time').textContent = `${formatTime(state.entries[index].time)} · frame ${index + 1} / ${state.entries.length}`;
  renderer.render(scene, camera);
}

function fillFieldMenu(frame) {
  const menu = $('field');
  const options = ['element', ...[...frame.pointData.keys()].filter((k) => k !== 'element_id'), 'none'];
  menu.replaceChildren(...options.map((name) => {
    const a = frame.pointData.get(name);
    const o = new Option(a && a.components > 1 ? `${name} |·|` : name, name);
    return o;
  }));
  if (!options.includes(state.field))
    throw new Error(`no point field '${state.field}' in ${frame.name}; the fields are: ${options.join(', ')}`);
  menu.value = state.field;
}

/** Pixels of the canvas that are not the background (how a test sees something was drawn). */
function drawnPixels() {
  const gl = renderer.getContext();
  const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
  const pixels = new Uint8Array(4 * w * h);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  const bg = new THREE.Color(background);
  const ref = [bg.r, bg.g, bg.b].map((c) => Math.round(255 * c));
  let count = 0;
  for (let i = 0; i < pixels.length; i += 4)
    if (Math.abs(pixels[i] - ref[0]) + Math.abs(pixels[i + 1] - ref[1]) + Math.abs(pixels[i + 2] - ref[2]) > 24) ++count;
  return count;
}

function report(query) { return fetch(`__report?${query}`).catch(() => {}); }

async function main() {
  state.field = params.get('field') || 'element';
  state.entries = await loadCollection(collectionUrl);
  const n = state.entries.length;
  if (n === 0) throw new Error(`${collectionUrl.pathname}: the collection lists no frames`);
  let start = Number(params.get('frame') ?? 0);
  if (!Number.isInteger(start) || start < -n || start >= n) throw new Error(`frame=${params.get('frame')}: the run has ${n} frames`);
  if (start < 0) start += n;
  state.frames = new Array(n).fill(null);
  $('scrub').max = String(n - 1);

  if (snapshotMode) {
    document.body.classList.add('snapshot');
    state.frames[start] = await loadFrame(state.entries[start]);
    fillFieldMenu(state.frames[start]);
    state.box = frameBox(state.frames[start]);
    frameCamera(state.box);
    showFrame(start);
    await report(`state=drawn&frame=${start}`);
    document.title = 'drawn';
    return;
  }

  // Every frame, a few requests at a time; the camera frames all of them.
  let loaded = 0;
  const queue = [...state.entries.keys()];
  const worker = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      state.frames[i] = await loadFrame(state.entries[i]);
      $('status').textContent = ++loaded < n ? `loading ${loaded} / ${n}` : '';
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, n) }, worker));
  for (const frame of state.frames) state.box.union(frameBox(frame));
  fillFieldMenu(state.frames[start]);
  frameCamera(state.box);
  showFrame(start);

  if (checkMode) {
    const labels = [];
    for (let i = 0; i < n; ++i) { showFrame(i); labels.push($('time').textContent); }
    const summary = {
      frames: n, times: state.entries.map((e) => e.time), labels,
      points: state.frames.map((f) => f.pointCount), cells: state.frames.map((f) => f.cellCount),
      fields: [...$('field').options].map((o) => o.value), drawn: drawnPixels(),
    };
    $('check').textContent = JSON.stringify(summary);
    $('check').hidden = false;
    document.title = 'checked';
    return;
  }
  bindControls();
  requestAnimationFrame(tick);
}

function bindControls() {
  const setPlaying = (on) => {
    state.playing = on;
    $('play').innerHTML = on ? '&#10074;&#10074;' : '&#9654;';
    if (on) state.simTime = state.entries[state.index].time;
  };
  $('play').onclick = () => setPlaying(!state.playing);
  $('scrub').oninput = () => { setPlaying(false); showFrame(Number($('scrub').value)); };
  $('field').onchange = () => { state.field = $('field').value; showFrame(state.index); };
  $('frame-camera').onclick = () => frameCamera(state.box);
  window.addEventListener('keydown', (e) => {
    if (['SELECT', 'INPUT'].includes(e.target.tagName)) return;  // their own keys
    const n = state.entries.length;
    if (e.key === ' ') { setPlaying(!state.playing); e.preventDefault(); }
    else if (e.key === 'ArrowRight') { setPlaying(false); showFrame(Math.min(state.index + 1, n - 1)); }
    else if (e.key === 'ArrowLeft') { setPlaying(false); showFrame(Math.max(state.index - 1, 0)); }
    else if (e.key === 'f') frameCamera(state.box);
  });
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
  });
}

/** Playback in simulated time times the speed; loops at the end. */
let lastTick = null;
function tick(now) {
  if (state.playing && lastTick !== null) {
    const entries = state.entries;
    state.simTime += ((now - lastTick) / 1000) * Number($('speed').value);
    if (state.simTime > entries[entries.length - 1].time) state.simTime = entries[0].time;
    let i = state.index;
    if (entries[i].time > state.simTime) i = 0;
    while (i + 1 < entries.length && entries[i + 1].time <= state.simTime) ++i;
    if (i !== state.index) showFrame(i);
  }
  lastTick = now;
  renderer.render(scene, camera);
  requestAnimationFrame(tick);
}

main().catch((error) => {
  const message = error && error.message ? error.message : String(error);
  $('status').textContent = `error: ${message}`;
  if (snapshotMode) report(`error=${encodeURIComponent(message)}`);
  if (checkMode) { $('check').textContent = JSON.stringify({ error: message }); $('check').hidden = false; }
  document.title = 'error';
});
