#!/usr/bin/env node
// optimize.js — onnxruntime-node as the peer compiler: for each MODEL, one
// InferenceSession on the CPU execution provider, single-threaded, at
// graphOptimizationLevel LEVEL, with optimizedModelFilePath set so that
// onnxruntime writes the graph it would run to OUTDIR/NAME.LEVEL.onnx.
//
//   node optimize.js LEVEL OUTDIR MODEL...     LEVEL: basic | extended
//
// One line of JSON per model on stdout: {"model", "out"} or {"model",
// "error"} (a model onnxruntime refuses, e.g. an op without a CPU kernel).
// Exit 0 unless the arguments are wrong or onnxruntime cannot be loaded.
'use strict';
const fs = require('fs');
const path = require('path');

async function optimize(ort, level, outdir, model) {
  const out = path.join(outdir, path.basename(model, '.onnx') + '.' + level + '.onnx');
  fs.rmSync(out, { force: true });
  const session = await ort.InferenceSession.create(path.resolve(model), {
    graphOptimizationLevel: level,
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    optimizedModelFilePath: path.resolve(out),
    logSeverityLevel: 3,
  });
  await session.release();
  if (!fs.existsSync(out))
    throw new Error('onnxruntime wrote no optimized model');
  return out;
}

async function main() {
  const [level, outdir, ...models] = process.argv.slice(2);
  if (!['basic', 'extended'].includes(level) || !outdir || models.length === 0) {
    console.error('usage: node optimize.js basic|extended OUTDIR MODEL...');
    process.exit(2);
  }
  const ort = require('onnxruntime-node');
  fs.mkdirSync(outdir, { recursive: true });
  for (const model of models) {
    try {
      console.log(JSON.stringify({ model, out: await optimize(ort, level, outdir, model) }));
    } catch (e) {
      console.log(JSON.stringify({ model, error: String(e && e.message ? e.message : e).split('\n')[0] }));
    }
  }
}

main().catch((e) => {
  console.error('optimize.js: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
