package dev.locksmith.benchmarks.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs the JMH benchmarks of the jar, one fork each, and writes JMH's JSON beside the report. */
final class JmhBenchmarks {
  private JmhBenchmarks() {}

  /**
   * How long JMH runs each benchmark.
   *
   * @param include the regular expression of benchmarks to run
   * @param warmups warm-up iterations of one second
   * @param iterations measured iterations; many short ones, so that the median shrugs off the
   *     moments when other builds took the cores
   * @param iterationSeconds length of a measured iteration
   */
  record Plan(String include, int warmups, int iterations, int iterationSeconds) {
    static Plan report(String include) {
      // Five warm-ups: with three, the Redis locks' first measured iterations still ran 1.5x their
      // settled time (Redisson's and Netty's paths compile late).
      return new Plan(include, 5, 9, 1);
    }

    static Plan quick(String include) {
      return new Plan(include, 1, 1, 1);
    }
  }

  static List<JmhRow> run(Plan plan, Path json) throws RunnerException {
    Options options =
        new OptionsBuilder()
            .include(plan.include())
            .forks(1)
            .warmupIterations(plan.warmups())
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(plan.iterations())
            .measurementTime(TimeValue.seconds(plan.iterationSeconds()))
            .resultFormat(ResultFormatType.JSON)
            .result(json.toString())
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(options).run();
    List<JmhRow> rows = new ArrayList<>();
    for (RunResult result : results) {
      var params = result.getParams();
      String benchmark = params.getBenchmark();
      int dot = benchmark.lastIndexOf('.');
      String className = benchmark.substring(0, dot);
      String paramText =
          params.getParamsKeys().stream()
              .map(key -> key + "=" + params.getParam(key))
              .collect(Collectors.joining(", "));
      var primary = result.getPrimaryResult();
      List<Double> iterations = new ArrayList<>();
      for (BenchmarkResult fork : result.getBenchmarkResults()) {
        for (IterationResult iteration : fork.getIterationResults()) {
          iterations.add(iteration.getPrimaryResult().getScore());
        }
      }
      rows.add(
          new JmhRow(
              className.substring(className.lastIndexOf('.') + 1),
              benchmark.substring(dot + 1),
              paramText,
              params.getMode().shortLabel(),
              iterations.isEmpty() ? primary.getScore() : median(iterations),
              primary.getScore(),
              primary.getScoreError(),
              primary.getScoreUnit()));
    }
    return rows;
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
