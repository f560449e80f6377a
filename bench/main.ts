import { formatTable } from './harness';
import { runPssSuite } from './pss-suite';

/** `npm run bench`: engine timings as ratios to baselines measured in the same run. */
async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${new Date().toISOString()}\n`);

  const pss = await runPssSuite();
  console.log(`Pod Security policies on a Pod CREATE (${pss.rules} rule responses per review)`);
  console.log(formatTable(pss.rows, pss.baseline));
  console.log('');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
