package dev.locksmith.benchmarks.report;

import dev.locksmith.testkit.redis.RedisBinaries;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/** What the reports say about the machine and the versions they ran. */
public final class Machine {
  private Machine() {}

  /** The machine: CPU, cores, memory, OS, JVM and the load average now. */
  public static Map<String, String> describe() {
    Map<String, String> facts = new LinkedHashMap<>();
    facts.put("CPU", cpuModel());
    facts.put("cores available to the JVM", Integer.toString(availableProcessors()));
    facts.put("memory", memory());
    facts.put(
        "OS",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " ("
            + System.getProperty("os.arch")
            + ")");
    facts.put(
        "JVM",
        System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.vendor")
            + ")");
    facts.put("redis-server", redisVersion());
    return facts;
  }

  /** The 1, 5 and 15 minute load averages, or "unknown". */
  public static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " / " + parts[1] + " / " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The library versions built into the benchmarks jar. */
  static Map<String, String> versions() {
    Properties properties = new Properties();
    try (InputStream in =
        Machine.class.getResourceAsStream("/dev/locksmith/benchmarks/versions.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      // reported as empty
    }
    Map<String, String> versions = new LinkedHashMap<>();
    for (String name :
        List.of(
            "locksmith",
            "redisson",
            "shedlock",
            "spring-integration",
            "spring-data-bom",
            "lettuce",
            "spring-framework",
            "netty",
            "jmh")) {
      versions.put(name, properties.getProperty(name, "unknown"));
    }
    return versions;
  }

  static int availableProcessors() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return System.getProperty("os.arch");
  }

  private static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kib = Long.parseLong(line.replaceAll("\\D+", ""));
          return String.format("%.1f GiB", kib / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return "unknown";
  }

  private static String redisVersion() {
    try {
      Process process =
          new ProcessBuilder(RedisBinaries.find().toString(), "--version")
              .redirectErrorStream(true)
              .start();
      String out;
      try (InputStream in = process.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      process.waitFor(10, TimeUnit.SECONDS);
      return out.isEmpty() ? "unknown" : out;
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
