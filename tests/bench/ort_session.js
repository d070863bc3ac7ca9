// ort_session.js — the onnxruntime-node peer of `make bench`: creates an
// InferenceSession with every graph optimisation (ORT's own fusions) and
// prints "key value" lines: wall and CPU milliseconds, peak RSS.
// Usage: node ort_session.js NODE_MODULES_DIR MODEL.onnx
const path = require('path');
const ort = require(path.join(process.argv[2], 'onnxruntime-node'));
const model = process.argv[3];
(async () => {
	const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
	const s = await ort.InferenceSession.create(model, {
		graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1,
	});
	const ms = Number(process.hrtime.bigint() - t0) / 1e6, c = process.cpuUsage(c0);
	console.log('ort_session_ms ' + ms.toFixed(1));
	console.log('ort_session_cpu_ms ' + ((c.user + c.system) / 1e3).toFixed(1));
	console.log('ort_rss_kb ' + process.resourceUsage().maxRSS);
	if (s.release) await s.release();
})().catch(e => { console.error('ort_session: ' + e.message); process.exit(1); });
