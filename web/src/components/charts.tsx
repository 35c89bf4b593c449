// Hand-made SVG charts: a chart library would be most of the bundle for four simple shapes.
import type { components } from '../api.js';
import { duration } from '../format.js';

type Daily = components['schemas']['DailySummary'];

/** Daily average score (line) over runs per day (bars). */
export function TrendChart({ days }: { days: Daily[] }) {
  const width = 720;
  const height = 200;
  const pad = 28;
  const maxRuns = Math.max(1, ...days.map((d) => d.tests));
  const step = (width - pad * 2) / Math.max(1, days.length);
  const x = (i: number): number => pad + i * step + step / 2;
  const yScore = (score: number): number => height - pad - (score / 100) * (height - pad * 2);
  const points = days.map((d, i) => (d.tests > 0 ? `${x(i)},${yScore(d.score)}` : undefined)).filter(Boolean);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Daily average score and runs over ${days.length} days`}
      >
        {[0, 50, 100].map((v) => (
          <g key={v}>
            <line x1={pad} x2={width - pad} y1={yScore(v)} y2={yScore(v)} class="grid" />
            <text x={4} y={yScore(v) + 4} class="axis">
              {v}
            </text>
          </g>
        ))}
        {days.map((d, i) => {
          const h = (d.tests / maxRuns) * (height - pad * 2) * 0.5;
          return (
            <rect
              key={d.date}
              x={x(i) - step * 0.35}
              width={step * 0.7}
              y={height - pad - h}
              height={h}
              class={d.failures ? 'bar bad' : 'bar'}
            >
              <title>{`${d.date}: ${d.tests} runs, ${d.failures} failed, average score ${d.score}`}</title>
            </rect>
          );
        })}
        <polyline points={points.join(' ')} class="line" />
        {days.map((d, i) =>
          d.tests > 0 ? (
            <circle key={`dot-${d.date}`} cx={x(i)} cy={yScore(d.score)} r={3.5} class="dot">
              <title>{`${d.date}: average score ${d.score}`}</title>
            </circle>
          ) : null,
        )}
        <text x={pad} y={height - 6} class="axis">
          {days[0]?.date}
        </text>
        <text x={width - pad} y={height - 6} class="axis" text-anchor="end">
          {days.at(-1)?.date}
        </text>
      </svg>
      <figcaption>Line: average score per day. Bars: runs per day (red when a run failed).</figcaption>
    </figure>
  );
}

/** A calendar of runs: one square per day, weeks as columns, darker = more runs, red = failures. */
export function Heatmap({ days }: { days: Daily[] }) {
  const cell = 14;
  const maxRuns = Math.max(1, ...days.map((d) => d.tests));
  const firstWeekday = days[0] ? new Date(`${days[0].date}T00:00:00Z`).getUTCDay() : 0;
  const weeks = Math.ceil((days.length + firstWeekday) / 7);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${weeks * cell + 2} ${7 * cell + 2}`}
        class="heatmap"
        role="img"
        aria-label="Calendar of runs per day"
      >
        {days.map((d, i) => {
          const slot = i + firstWeekday;
          const level = d.tests === 0 ? 0 : Math.ceil((d.tests / maxRuns) * 4);
          return (
            <rect
              key={d.date}
              x={Math.floor(slot / 7) * cell + 1}
              y={(slot % 7) * cell + 1}
              width={cell - 2}
              height={cell - 2}
              rx={2}
              class={d.failures > 0 ? `heat fail` : `heat l${level}`}
            >
              <title>{`${d.date}: ${d.tests} runs, ${d.failures} failed`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption>
        One square per day (UTC), weeks left to right; a stronger blue means more runs, red means a run
        failed.
      </figcaption>
    </figure>
  );
}

/** A small line of values over time (score or RTO history). */
export function History({
  values,
  label,
  max,
  unit,
}: {
  values: number[];
  label: string;
  max?: number;
  unit?: 's';
}) {
  const width = 320;
  const height = 80;
  const top = max ?? Math.max(1, ...values);
  const x = (i: number): number =>
    values.length < 2 ? width / 2 : 4 + (i * (width - 8)) / (values.length - 1);
  const y = (v: number): number => height - 4 - (v / top) * (height - 8);
  const last = values.at(-1);
  return (
    <figure class="chart small">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}, ${values.length} runs`}>
        <polyline points={values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} class="line" />
        {values.map((v, i) => (
          <circle key={i} cx={x(i)} cy={y(v)} r={2.5} class="dot">
            <title>{unit === 's' ? duration(v) : String(v)}</title>
          </circle>
        ))}
      </svg>
      <figcaption>
        {label}
        {last !== undefined ? `: latest ${unit === 's' ? duration(last) : last}` : ''}
      </figcaption>
    </figure>
  );
}

export interface Phase {
  name: string;
  seconds: number;
}

/** The RTO as stacked phases, against the SLA target when there is one. */
export function RtoBar({ phases, targetSeconds }: { phases: Phase[]; targetSeconds: number | undefined }) {
  const total = phases.reduce((sum, p) => sum + p.seconds, 0);
  const scale = Math.max(total, targetSeconds ?? 0, 1);
  return (
    <div class="rto">
      <div
        class="rto-track"
        role="img"
        aria-label={`RTO ${duration(total)}${targetSeconds ? ` against a target of ${duration(targetSeconds)}` : ', no SLA target'}`}
      >
        {phases.map((p, i) => (
          <div
            key={p.name}
            class={`rto-phase p${i}`}
            style={{ width: `${(p.seconds / scale) * 100}%` }}
            title={`${p.name}: ${duration(p.seconds)}`}
          />
        ))}
        {targetSeconds ? (
          <div
            class="rto-target"
            style={{ left: `${(targetSeconds / scale) * 100}%` }}
            title={`SLA ${duration(targetSeconds)}`}
          />
        ) : null}
      </div>
      <ul class="legend">
        {phases.map((p, i) => (
          <li key={p.name}>
            <span class={`swatch p${i}`} />
            {p.name}: {duration(p.seconds)}
          </li>
        ))}
        <li>{targetSeconds ? `SLA target: ${duration(targetSeconds)} (line)` : 'No SLA target'}</li>
      </ul>
    </div>
  );
}
