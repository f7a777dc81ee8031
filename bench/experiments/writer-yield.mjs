// Experiment, not production code: preloaded into the server by
//   npm run bench -- --backends pglite --server-node-flags="--import ./bench/experiments/writer-yield.mjs"
// it makes GroupCommitWriter.drain() yield to the event loop (setImmediate) before taking each
// group, so requests that arrived during the previous commit are parsed and queued first. With
// PGlite the commit runs on the main thread and, without this, every group holds exactly one
// request. Set WRITER_GROUPS_OUT=/path.json to get the group sizes (requests, spans) at exit.
import { writeFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { GroupCommitWriter } = await import(new URL('../../src/ingest/writer.ts', import.meta.url).href);
const groups = [];
const commitGroup = GroupCommitWriter.prototype.commitGroup;
GroupCommitWriter.prototype.commitGroup = function (group) {
  groups.push([group.length, group.reduce((n, p) => n + p.spans.length, 0)]);
  return commitGroup.call(this, group);
};
if (process.env.WRITER_YIELD !== 'off') {
  GroupCommitWriter.prototype.drain = async function () {
    while (this.queue.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      const group = this.takeGroup();
      await this.commitGroup(group);
      for (const p of group) this.queuedSpans -= p.spans.length;
    }
  };
}
process.on('exit', () => {
  if (process.env.WRITER_GROUPS_OUT) writeFileSync(process.env.WRITER_GROUPS_OUT, JSON.stringify(groups));
});
