import { readFileSync } from 'node:fs';
const cpu = () => { const r = readFileSync('/proc/thread-self/stat','utf8'); const f = r.slice(r.lastIndexOf(')')+2).split(' '); return (Number(f[11])+Number(f[12]))*10; };
const c0 = cpu(); const t0 = performance.now();
for (const m of process.argv.slice(2)) await import(m);
console.log(process.argv.slice(2).join(' '), 'cpu', cpu()-c0, 'ms wall', Math.round(performance.now()-t0));
