package dev.locksmith.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** How {@code RESULTS.md} writes figures, ratios and JMH tables. */
final class ReportText {
  private ReportText() {}

  static String num(double value) {
    double abs = Math.abs(value);
    if (abs >= 100) {
      return String.format(Locale.ROOT, "%,.0f", value);
    }
    if (abs >= 10) {
      return String.format(Locale.ROOT, "%.1f", value);
    }
    return String.format(Locale.ROOT, "%.3f", value);
  }

  static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2fx", value);
  }

  static String ratioOf(long value, long base) {
    return base > 0 ? ratio((double) value / base) : "n/a";
  }

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
  }

  static String score(JmhRow row) {
    return num(row.score()) + " " + row.unit();
  }

  /**
   * "yes" or "no", or "within noise" when the two means' 99.9% error intervals overlap: then this
   * run cannot tell the two apart, whatever their medians say.
   */
  static String verdict(boolean met, JmhRow a, JmhRow b) {
    boolean known = !Double.isNaN(a.error()) && !Double.isNaN(b.error());
    boolean overlap =
        known
            && a.mean() - a.error() <= b.mean() + b.error()
            && b.mean() - b.error() <= a.mean() + a.error();
    String answer = met ? "yes" : "**no**";
    return overlap ? answer + " (within noise: error bars overlap)" : answer;
  }

  static void jmhTable(StringBuilder md, List<JmhRow> rows) {
    JmhRow baseline = baselineOf(rows);
    md.append("| benchmark | mode | median | mean ± error (99.9%) | unit | median ratio vs `")
        .append(baseline.method())
        .append("` |\n|---|---|---:|---:|---|---:|\n");
    for (JmhRow row : rows) {
      md.append("| ")
          .append(row.method())
          .append(row.params().isEmpty() ? "" : " (" + row.params() + ")")
          .append(row == baseline ? " (baseline)" : "")
          .append(" | ")
          .append(row.mode())
          .append(" | ")
          .append(num(row.score()))
          .append(" | ")
          .append(num(row.mean()))
          .append(Double.isNaN(row.error()) ? "" : " ± " + num(row.error()))
          .append(" | ")
          .append(row.unit())
          .append(" | ")
          .append(ratio(row.score() / baseline.score()))
          .append(" |\n");
    }
    md.append('\n');
  }

  /**
   * The known baseline of the class, else a method named like one ({@code baseline}, {@code
   * direct}, {@code raw...}), else the best score.
   */
  static JmhRow baselineOf(List<JmhRow> rows) {
    String known = ResultsReport.BASELINES.get(rows.get(0).benchmarkClass());
    for (JmhRow row : rows) {
      if (row.method().equals(known)) {
        return row;
      }
    }
    for (JmhRow row : rows) {
      String m = row.method().toLowerCase(Locale.ROOT);
      if (m.contains("baseline") || m.equals("direct") || m.startsWith("raw")) {
        return row;
      }
    }
    JmhRow best = rows.get(0);
    for (JmhRow row : rows) {
      boolean better =
          row.higherIsBetter() ? row.score() > best.score() : row.score() < best.score();
      if (better) {
        best = row;
      }
    }
    return best;
  }
}
