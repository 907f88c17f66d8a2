package dev.locksmith.aspectj.ltw;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.aspectj.LoadTimeWovenToo;
import dev.locksmith.core.LockConfigurationException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child JVM that starts like an application: checks weaving at start, then makes a locked call of
 * a class woven at compile time. Writes the outcomes, as properties, to the file named by its first
 * argument.
 */
public final class LtwStart {
  private LtwStart() {}

  /** Runs the start-up check and the first locked call. */
  public static void main(String[] args) throws Exception {
    Properties results = new Properties();
    try {
      results.setProperty("verify", "passed " + AspectLocksmith.verifyWeaving());
    } catch (LockConfigurationException e) {
      results.setProperty("verify", "failed: " + e.getMessage());
    }
    AtomicInteger evaluations = new AtomicInteger();
    try {
      results.setProperty("call", "returned " + new LoadTimeWovenToo().locked(evaluations));
    } catch (LockConfigurationException e) {
      results.setProperty("call", "failed: " + e.getMessage());
    }
    results.setProperty("keyEvaluations", String.valueOf(evaluations.get()));
    try (Writer out = Files.newBufferedWriter(Path.of(args[0]), StandardCharsets.UTF_8)) {
      results.store(out, null);
    }
    AspectLocksmith.reset();
  }
}
