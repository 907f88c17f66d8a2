package dev.locksmith.benchmarks.jdbc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.util.Statistics;

/** Runs {@link JdbcProviderBenchmark} and renders its figures with ratios to the raw baseline. */
final class JmhTable {
  private JmhTable() {}

  /** One system's sample-time figures, microseconds. */
  record Row(String system, double mean, double p50, double p99, long samples) {}

  /** Runs the benchmark against the server of {@code postgresUrl}; returns its Markdown table. */
  static String run(String postgresUrl) throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(JdbcProviderBenchmark.class.getName() + "\\.")
                    .shouldFailOnError(true)
                    .jvmArgsAppend("-D" + JdbcProviderBenchmark.URL_PROPERTY + "=" + postgresUrl)
                    .build())
            .run();
    List<Row> rows = new ArrayList<>();
    for (RunResult result : results) {
      Result<?> primary = result.getPrimaryResult();
      Statistics stats = primary.getStatistics();
      rows.add(
          new Row(
              result.getParams().getParam("system"),
              stats.getMean(),
              stats.getPercentile(50),
              stats.getPercentile(99),
              stats.getN()));
    }
    return render(rows);
  }

  static String render(List<Row> rows) {
    Row raw =
        rows.stream()
            .filter(r -> r.system().equals("raw"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no raw baseline among " + rows));
    StringBuilder md = new StringBuilder();
    md.append("\n### Uncontended lock+unlock on PostgreSQL (JMH `JdbcProviderBenchmark`)\n\n")
        .append("One thread, one key, sample time, 1 fork of 2 x 1 s warm-up + 5 x 1 s; each")
        .append(" system has a pool of its own of ")
        .append(Systems.POOL)
        .append(" connections. Baseline `raw`: one `INSERT ... ON CONFLICT DO UPDATE ... WHERE`")
        .append(" and one `UPDATE` ending the lease, keeping the row as both providers do (no")
        .append(" owner check, no fencing token). Each system runs in a fork")
        .append(
            " of its own, one after the other, so load from other builds in between shifts whole")
        .append(" rows: read the ratios from the interleaved table below.\n\n")
        .append("| system | samples | mean (us) | p50 (us) | p99 (us) | mean / raw | p50 / raw |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|\n");
    for (Row row : rows) {
      md.append(
          String.format(
              Locale.ROOT,
              "| `%s` | %d | %.0f | %.0f | %.0f | %.2f | %.2f |%n",
              row.system(),
              row.samples(),
              row.mean(),
              row.p50(),
              row.p99(),
              row.mean() / raw.mean(),
              row.p50() / raw.p50()));
    }
    return md.toString();
  }
}
