/**
 * A Chart.js chart on a canvas, with only the parts the app draws registered. Chart.js draws on
 * the canvas and sets sizes through the style object, which the strict content policy allows
 * (no style elements, no inline scripts).
 *
 * A canvas says nothing to a screen reader: `label` is its text alternative (it names the
 * figures), and every chart in the app has the table of the same figures beside it.
 * Values are numbers for drawing only; the figures people read are the API's decimal strings.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { Chart, ChartConfiguration } from 'chart.js';

/**
 * Chart.js, fetched the first time a chart is drawn (a bundle of its own): the pages without a
 * chart, and the start of every page, do not parse it.
 */
let chartJs: Promise<typeof Chart> | null = null;
const loadChart = () => (chartJs ??= import('chart.js').then(({
  ArcElement, BarController, BarElement, CategoryScale, Chart: ChartJs, DoughnutController, Legend,
  LineController, LineElement, LinearScale, PointElement, Tooltip,
}) => {
  ChartJs.register(ArcElement, BarController, BarElement, CategoryScale, DoughnutController, Legend, LineController, LineElement, LinearScale, PointElement, Tooltip);
  return ChartJs;
}));

/** Colours with enough contrast on white, current period first. */
export const CHART_COLOURS = ['#2f5fd0', '#8a93a6', '#b45309', '#0f766e', '#7c3aed', '#b42318', '#4a5263'];

export function ChartCanvas({ config, label, testId }: { config: ChartConfiguration; label: string; testId: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    let live = true;
    void loadChart().then((ChartJs) => {
      if (!live || !ref.current) return;
      chart.current?.destroy();
      chart.current = new ChartJs(ref.current, {
        ...config,
        options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
      });
    });
    return () => { live = false; chart.current?.destroy(); chart.current = null; };
  }, [JSON.stringify(config.data), config.type]);
  return (
    <div class="chart-box">
      <canvas ref={ref} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}
