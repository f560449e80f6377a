/**
 * The exposition text of a controller's registries with the `kyverno-metrics` ConfigMap's
 * `metricsExposure` applied at scrape, as Kyverno's OpenTelemetry views apply it: a disabled metric is
 * left out, and a metric's disabled label dimensions are dropped, its series summed over them (for a
 * histogram, bucket by bucket: its boundaries are the same in every series). Without any exposure set,
 * the registries' own text is served unchanged.
 */
import type { MetricObjectWithValues, MetricValue, Registry } from 'prom-client';
import type { MetricsConfiguration } from './metrics-configuration';

export async function renderMetrics(
  registries: readonly Registry[],
  configuration: MetricsConfiguration,
): Promise<string> {
  if (!configuration.hasExposures) {
    const texts = await Promise.all(registries.map((registry) => registry.metrics()));
    return texts.join('\n');
  }
  const metrics = (await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).flat();
  const out: string[] = [];
  for (const metric of metrics as MetricObjectWithValues<MetricValue<string>>[]) {
    const exposure = configuration.exposure(metric.name);
    if (exposure && !exposure.enabled) continue;
    const dropped = new Set(exposure?.disabledLabelDimensions ?? []);
    out.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`, `# TYPE ${metric.name} ${metric.type}`);
    const series = new Map<string, { name: string; labels: [string, string][]; value: number }>();
    for (const value of metric.values as (MetricValue<string> & { metricName?: string })[]) {
      const name = value.metricName ?? metric.name;
      const labels = Object.entries(value.labels as Record<string, string | number>)
        .filter(([label, labelValue]) => !dropped.has(label) && labelValue !== undefined)
        .map(([label, labelValue]): [string, string] => [label, String(labelValue)]);
      const key = `${name}\u0000${labels.map(([label, labelValue]) => `${label}\u0001${labelValue}`).join('\u0000')}`;
      const existing = series.get(key);
      if (existing) existing.value += value.value;
      else series.set(key, { name, labels, value: value.value });
    }
    for (const { name, labels, value } of series.values()) {
      const text = labels.map(([label, labelValue]) => `${label}="${escapeLabelValue(labelValue)}"`).join(',');
      out.push(`${name}${text ? `{${text}}` : ''} ${formatValue(value)}`);
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}
