package dev.locksmith.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Collects the figures of every scenario run in this JVM and rewrites {@code
 * target/chaos-report.md} and {@code target/chaos-report.json} after each one, so the files are
 * complete when the suite ends and show what was measured even when an assertion failed.
 */
final class ChaosReport {
  /** One scenario run: its figures and the violations found (none when it passed). */
  record Run(
      int scenario,
      String title,
      String provider,
      Map<String, Object> figures,
      List<String> violations) {}

  private static final ReentrantLock LOCK = new ReentrantLock();
  private static final List<Run> RUNS = new ArrayList<>();
  private static final Instant STARTED = Instant.now();
  private static final JsonMapper MAPPER = JsonMapper.shared();

  /** Indented, with {@code "name": value} as usual rather than Jackson's {@code "name" : value}. */
  private static final ObjectWriter WRITER =
      MAPPER
          .writer()
          .with(
              new DefaultPrettyPrinter(
                  Separators.createDefaultInstance()
                      .withObjectNameValueSpacing(Separators.Spacing.AFTER)));

  private ChaosReport() {}

  /** The directory of the report ({@code chaos.reportDir}, else {@code target}). */
  static Path directory() {
    return Path.of(System.getProperty("chaos.reportDir", "target"));
  }

  /**
   * The scratch directory of the workers ({@code chaos.workDir}, else {@code target/chaos-work}).
   */
  static Path workDirectory() {
    return Path.of(System.getProperty("chaos.workDir", "target/chaos-work"));
  }

  /** Records a run and rewrites both report files. */
  static void record(
      int scenario, String title, Backend.Kind provider, Figures figures, List<String> violations) {
    LOCK.lock();
    try {
      Map<String, Object> withViolations = new LinkedHashMap<>();
      withViolations.put("violations", violations.size());
      withViolations.putAll(figures.values());
      RUNS.add(
          new Run(scenario, title, provider.scheme(), withViolations, List.copyOf(violations)));
      RUNS.sort(Comparator.comparingInt(Run::scenario));
      write();
    } finally {
      LOCK.unlock();
    }
  }

  private static void write() {
    try {
      Path dir = Files.createDirectories(directory());
      WorkerIo.writeAtomically(dir.resolve("chaos-report.md"), markdown());
      WorkerIo.writeAtomically(dir.resolve("chaos-report.json"), json());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the chaos report", e);
    }
  }

  private static String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# Locksmith chaos report\n\n")
        .append("Started ")
        .append(STARTED)
        .append(", written ")
        .append(Instant.now())
        .append(". Times are milliseconds on the host's monotonic clock. ")
        .append(
            "`violations` must be 0 everywhere; see chaos/README.md for what each figure means.\n");
    Map<Integer, List<Run>> byScenario = new LinkedHashMap<>();
    for (Run run : RUNS) {
      byScenario.computeIfAbsent(run.scenario(), s -> new ArrayList<>()).add(run);
    }
    for (List<Run> runs : byScenario.values()) {
      md.append("\n## ")
          .append(runs.get(0).scenario())
          .append(". ")
          .append(runs.get(0).title())
          .append("\n\n");
      Set<String> columns = new LinkedHashSet<>();
      runs.forEach(run -> columns.addAll(run.figures().keySet()));
      md.append("| figure |");
      runs.forEach(run -> md.append(" `").append(run.provider()).append("` |"));
      md.append("\n|---|");
      runs.forEach(run -> md.append("---:|"));
      md.append('\n');
      for (String column : columns) {
        md.append("| ").append(column).append(" |");
        for (Run run : runs) {
          Object value = run.figures().get(column);
          md.append(' ').append(value == null || notFinite(value) ? "–" : value).append(" |");
        }
        md.append('\n');
      }
      for (Run run : runs) {
        for (String violation : run.violations()) {
          md.append("\n- **").append(run.provider()).append(" violation:** ").append(violation);
        }
      }
      md.append('\n');
    }
    return md.toString();
  }

  private static String json() {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("started", STARTED.toString());
    root.put("written", Instant.now().toString());
    ArrayNode runs = root.putArray("runs");
    for (Run run : RUNS) {
      ObjectNode node = runs.addObject();
      node.put("scenario", run.scenario());
      node.put("title", run.title());
      node.put("provider", run.provider());
      ObjectNode figures = node.putObject("figures");
      run.figures().forEach((name, value) -> figures.set(name, figure(value)));
      ArrayNode violations = node.putArray("violations");
      run.violations().forEach(violations::add);
    }
    return WRITER.writeValueAsString(root) + "\n";
  }

  /** A figure as JSON: numbers and booleans bare, a figure that is no number (NaN) as null. */
  static String jsonValue(Object value) {
    return MAPPER.writeValueAsString(figure(value));
  }

  private static JsonNode figure(Object value) {
    if (notFinite(value)) {
      return MAPPER.getNodeFactory().nullNode();
    }
    return value instanceof Number || value instanceof Boolean
        ? MAPPER.valueToTree(value)
        : MAPPER.getNodeFactory().stringNode(String.valueOf(value));
  }

  private static boolean notFinite(Object value) {
    return (value instanceof Double d && !Double.isFinite(d))
        || (value instanceof Float f && !Float.isFinite(f));
  }
}
