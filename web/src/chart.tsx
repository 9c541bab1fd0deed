/**
 * A Chart.js chart on a canvas, with only the parts the app draws registered (the bundle keeps
 * just those). Chart.js draws on the canvas and sets sizes through the style object, which the
 * strict content policy allows (no style elements, no inline scripts).
 *
 * A canvas says nothing to a screen reader: `label` is its text alternative (it names the
 * figures), and every chart in the app has the table of the same figures beside it.
 * Values are numbers for drawing only; the figures people read are the API's decimal strings.
 */
import { useEffect, useRef } from 'preact/hooks';
import {
  ArcElement, BarController, BarElement, CategoryScale, Chart, DoughnutController, Legend,
  LineController, LineElement, LinearScale, PointElement, Tooltip, type ChartConfiguration,
} from 'chart.js';

Chart.register(ArcElement, BarController, BarElement, CategoryScale, DoughnutController, Legend, LineController, LineElement, LinearScale, PointElement, Tooltip);

/** Colours with enough contrast on white, current period first. */
export const CHART_COLOURS = ['#2f5fd0', '#8a93a6', '#b45309', '#0f766e', '#7c3aed', '#b42318', '#4a5263'];

export function ChartCanvas({ config, label, testId }: { config: ChartConfiguration; label: string; testId: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    if (!ref.current) return;
    chart.current?.destroy();
    chart.current = new Chart(ref.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
    });
    return () => { chart.current?.destroy(); chart.current = null; };
  }, [JSON.stringify(config.data), config.type]);
  return (
    <div class="chart-box">
      <canvas ref={ref} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}
