package dev.locksmith.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A section of {@code RESULTS.md} that another command writes (the capacity benchmark, the JDBC and
 * ZooKeeper comparisons), kept between marker comments: {@code run.sh} carries it over when it
 * rewrites the file, and the command that owns it replaces it in place.
 *
 * @param name the section's name in its markers
 */
public record ResultsSection(String name) {
  /** The capacity benchmark's section. */
  public static final ResultsSection CAPACITY = new ResultsSection("capacity");

  /** The JDBC comparison's section ({@code jdbc.JdbcComparison}). */
  public static final ResultsSection JDBC = new ResultsSection("jdbc");

  /** The renewal-at-scale section ({@code renewal.Renewals}). */
  public static final ResultsSection RENEWALS = new ResultsSection("renewals");

  /** The ZooKeeper comparison's section ({@code zookeeper.ZkComparison}). */
  public static final ResultsSection ZOOKEEPER = new ResultsSection("zookeeper");

  String begin() {
    return "<!-- " + name + ":begin (written by the " + name + " benchmark; run.sh keeps it) -->";
  }

  String end() {
    return "<!-- " + name + ":end -->";
  }

  /** The section with its markers as it stands in {@code markdown}, or "" when absent. */
  String find(String markdown) {
    int from = markdown.indexOf("<!-- " + name + ":begin");
    int to = markdown.indexOf(end());
    if (from < 0 || to < from) {
      return "";
    }
    return markdown.substring(from, to + end().length());
  }

  /** {@code markdown} with the section set to {@code body}: replaced in place, else appended. */
  String put(String markdown, String body) {
    String block = begin() + "\n" + body.strip() + "\n" + end();
    String old = find(markdown);
    if (!old.isEmpty()) {
      return markdown.replace(old, block);
    }
    return markdown.stripTrailing() + "\n\n" + block + "\n";
  }

  /** Writes {@code body} into the section of {@code file} (created when missing). */
  public void write(Path file, String body) throws IOException {
    String markdown = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    Files.writeString(file, put(markdown, body), StandardCharsets.UTF_8);
  }

  /** {@code markdown} with the section {@code file} has now, if any, carried over to its end. */
  String carryOver(Path file, String markdown) throws IOException {
    if (!Files.exists(file)) {
      return markdown;
    }
    String old = find(Files.readString(file, StandardCharsets.UTF_8));
    return old.isEmpty() ? markdown : markdown.stripTrailing() + "\n\n" + old + "\n";
  }
}
