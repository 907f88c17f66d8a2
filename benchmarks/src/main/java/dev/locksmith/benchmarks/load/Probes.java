package dev.locksmith.benchmarks.load;

import dev.locksmith.testkit.redis.RedisServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What {@link Capacity} reads about processes: CPU time, open files, Redis's INFO. */
final class Probes {
  private Probes() {}

  /** CPU seconds a process has used (user + system), from /proc; 0 where there is none. */
  static double processCpu(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command; ticks of 1/100 s.
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  static double redisCpu(RedisServerProcess redis) {
    try {
      Map<String, String> info = info(redis);
      return Double.parseDouble(info.get("used_cpu_user"))
          + Double.parseDouble(info.get("used_cpu_sys"));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  static double ownCpu() {
    return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  static Map<String, String> info(RedisServerProcess redis) throws IOException {
    Object reply = redis.call("INFO");
    String text =
        reply instanceof byte[] bytes
            ? new String(bytes, StandardCharsets.UTF_8)
            : String.valueOf(reply);
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  static String configMaxClients(RedisServerProcess redis) throws IOException {
    Object reply = redis.call("CONFIG", "GET", "maxclients");
    if (reply instanceof List<?> list && list.size() == 2) {
      Object value = list.get(1);
      return value instanceof byte[] bytes
          ? new String(bytes, StandardCharsets.UTF_8)
          : String.valueOf(value);
    }
    return String.valueOf(reply);
  }

  static long delta(Map<String, String> before, Map<String, String> after, String key) {
    return Long.parseLong(after.get(key)) - Long.parseLong(before.get(key));
  }

  /** The soft limit on open files of this process, from /proc (20,000 when unknown). */
  static int fdLimit() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          return Integer.parseInt(line.substring(26).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return 20_000;
  }

  static int openFds() {
    String[] fds = new java.io.File("/proc/self/fd").list();
    return fds == null ? 100 : fds.length;
  }
}
