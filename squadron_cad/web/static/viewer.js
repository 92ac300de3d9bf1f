// The 3D view: a part's STL, the packed box (the STLs placed by layout.json's 4x4
// transforms) or a plate's 3MF in its colours, with orbit and zoom. three.js is served
// from the package (static/vendor), loaded only when this tab opens.
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { STLLoader } from "three/addons/loaders/STLLoader.js";
import { ThreeMFLoader } from "three/addons/loaders/3MFLoader.js";

const $ = (id) => document.getElementById(id);
const BACKGROUND = 0xf3f5f8;
const PALETTE = [0x2e6fba, 0xc0392b, 0x2e8b57, 0xe67e22, 0x8e44ad, 0x17a2b8, 0xd4a017, 0x7b241c];

let view = null; // { renderer, scene, camera, controls }
let built = null;
let kitShown = "";
const meshes = new Map(); // url -> BufferGeometry, for one kit's build

function fileUrl(kit, rel) {
  return `/files/${encodeURIComponent(kit)}/${rel.split("/").map(encodeURIComponent).join("/")}`;
}

function setup() {
  const box = $("viewer");
  box.replaceChildren();
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  renderer.setClearColor(BACKGROUND);
  box.append(renderer.domElement);
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(1, -1.5, 2);
  scene.add(sun);
  const camera = new THREE.PerspectiveCamera(35, 1, 0.1, 5000);
  camera.up.set(0, 0, 1); // STLs are z-up, as printed
  const controls = new OrbitControls(camera, renderer.domElement);
  view = { renderer, scene, camera, controls, content: null };
  controls.addEventListener("change", draw);
  new ResizeObserver(resize).observe(box);
  resize();
}

function resize() {
  const box = $("viewer");
  const width = box.clientWidth || 300;
  const height = Math.max(260, Math.min(width * 0.75, window.innerHeight * 0.7));
  view.renderer.setSize(width, height);
  view.camera.aspect = width / height;
  view.camera.updateProjectionMatrix();
  draw();
}

function draw() {
  if (view) view.renderer.render(view.scene, view.camera);
}

function frame(object) {
  const bounds = new THREE.Box3().setFromObject(object);
  const sphere = bounds.getBoundingSphere(new THREE.Sphere());
  const distance = sphere.radius / Math.sin(THREE.MathUtils.degToRad(view.camera.fov / 2)) * 1.05;
  const direction = new THREE.Vector3(0.9, -1.4, 1.1).normalize();
  view.camera.position.copy(sphere.center).addScaledVector(direction, distance);
  view.camera.near = distance / 100;
  view.camera.far = distance * 10;
  view.camera.updateProjectionMatrix();
  view.controls.target.copy(sphere.center);
  view.controls.update();
}

async function geometry(url) {
  if (!meshes.has(url)) {
    meshes.set(url, fetch(url).then(async (answer) => {
      if (!answer.ok) throw new Error(`${url}: ${answer.status}`);
      const shape = new STLLoader().parse(await answer.arrayBuffer());
      shape.computeVertexNormals();
      return shape;
    }));
  }
  return meshes.get(url);
}

function material(colour, opacity = 1) {
  return new THREE.MeshStandardMaterial({ color: colour, roughness: 0.65, metalness: 0.05,
    transparent: opacity < 1, opacity, side: THREE.DoubleSide });
}

async function partModel(file) {
  return new THREE.Mesh(await geometry(fileUrl(kitShown, file)), material(0xe0a526));
}

async function boxModel() {
  const answer = await fetch(fileUrl(kitShown, "layout.json"));
  const layout = await answer.json();
  const group = new THREE.Group();
  const colours = new Map();
  const place = async (entry, paint, opacity) => {
    const mesh = new THREE.Mesh(await geometry(fileUrl(kitShown, entry.stl)), material(paint, opacity));
    mesh.matrixAutoUpdate = false;
    mesh.matrix.set(...entry.transform.flat());
    mesh.name = entry.name || entry.stl;
    group.add(mesh);
  };
  const jobs = [place(layout.box, 0xb8c4d6, 0.45)];
  for (const entry of layout.contents) {
    if (!colours.has(entry.stl)) colours.set(entry.stl, PALETTE[colours.size % PALETTE.length]);
    jobs.push(place(entry, colours.get(entry.stl), 1));
  }
  await Promise.all(jobs);
  return group;
}

async function plateModel(file) {
  const answer = await fetch(fileUrl(kitShown, file));
  if (!answer.ok) throw new Error(`${file}: ${answer.status}`);
  const group = new ThreeMFLoader().parse(await answer.arrayBuffer());
  group.traverse((node) => {
    if (node.isMesh) {
      const old = Array.isArray(node.material) ? node.material : [node.material];
      const fresh = old.map((m) => material(m.color ? m.color.getHex() : 0xcccccc));
      node.material = Array.isArray(node.material) ? fresh : fresh[0];
    }
  });
  return group;
}

let asked = 0; // the latest model asked for: an earlier one still loading is not drawn

async function show(choice) {
  const [kind, file] = choice.split(":");
  const started = performance.now();
  const ticket = ++asked;
  $("viewer").dataset.drawn = "";
  $("model-note").textContent = "loading...";
  let model;
  try {
    model = kind === "box" ? await boxModel() : kind === "plate" ? await plateModel(file) : await partModel(file);
  } catch (error) {
    if (ticket === asked) $("model-note").textContent = `could not load it: ${error.message}`;
    return;
  }
  if (ticket !== asked) return;
  if (!view) setup();
  if (view.content) view.scene.remove(view.content);
  view.content = model;
  view.scene.add(model);
  frame(model);
  draw();
  const ms = Math.round(performance.now() - started);
  $("viewer").dataset.drawn = choice;
  $("viewer").dataset.drawMs = String(ms);
  $("model-note").textContent = "drag to turn, scroll or pinch to zoom";
}

function fillChoices() {
  const picker = $("model");
  const options = [];
  if (built && built.built) {
    if (built.layout) options.push(new Option("the packed box", "box:layout.json"));
    for (const plate of built.plates) options.push(new Option(`plate: ${plate.plate}`, `plate:${plate.file}`));
    for (const part of built.parts) options.push(new Option(`part: ${part.name.replaceAll("_", " ")}`, `part:${part.file}`));
  }
  picker.replaceChildren(...options);
  picker.disabled = !options.length;
  if (!options.length) {
    $("viewer").innerHTML = "<p class='small empty'>Build the kit to see its parts in 3D.</p>";
    view = null;
    return;
  }
  // the model on show stays chosen when the list is made anew (a build just ended)
  const kept = options.find((o) => o.value === picker.dataset.chosen);
  const first = kept || options.find((o) => o.value.startsWith("part:")) || options[0];
  picker.value = first.value;
  picker.dataset.chosen = first.value;
  show(picker.value);
}

export async function open(kit) {
  if (kit !== kitShown || !built) {
    kitShown = kit;
    meshes.clear();
    built = await (await fetch(`/api/built?kit=${encodeURIComponent(kit)}`)).json();
    fillChoices();
  }
}

$("model").addEventListener("change", () => {
  $("model").dataset.chosen = $("model").value;
  show($("model").value);
});
window.addEventListener("built", (event) => {
  built = event.detail;
  kitShown = built.kit || kitShown;
  meshes.clear();
  if (!$("tab-view3d").hidden) fillChoices();
  else built = null; // read afresh when the tab opens
});
