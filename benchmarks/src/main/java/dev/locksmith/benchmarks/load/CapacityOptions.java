package dev.locksmith.benchmarks.load;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What {@link Capacity} runs and how big. */
final class CapacityOptions {
  Set<String> phases =
      new LinkedHashSet<>(List.of("connections", "locks", "throughput", "handoff", "flood"));
  int connections = -1;
  int locks = 5_000_000;
  int lockConnections = 100;
  int floodConnections = 200;
  int floodBytes = 256 * 1024;
  List<Integer> clients = List.of(32, 256);
  String heap = "1g";
  Duration warmup = Duration.ofSeconds(3);
  Duration window = Duration.ofSeconds(4);
  int rounds = 3;
  @Nullable Path results;
  List<String> args = List.of();

  /** Reads the command line; an unknown option is an error naming it. */
  static CapacityOptions parse(String[] args) {
    CapacityOptions o = new CapacityOptions();
    o.args = List.of(args);
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (arg) {
        case "--phases" -> o.phases = new LinkedHashSet<>(List.of(value.split(",")));
        case "--connections" -> o.connections = Integer.parseInt(value);
        case "--locks" -> o.locks = Integer.parseInt(value);
        case "--lock-connections" -> o.lockConnections = Integer.parseInt(value);
        case "--flood-connections" -> o.floodConnections = Integer.parseInt(value);
        case "--flood-bytes" -> o.floodBytes = Integer.parseInt(value);
        case "--clients" -> {
          int floodConnections = 200;
          int floodBytes = 256 * 1024;
          List<Integer> clients = new ArrayList<>();
          for (String c : value.split(",")) {
            clients.add(Integer.parseInt(c));
          }
          o.clients = clients;
        }
        case "--heap" -> o.heap = value;
        case "--window" -> o.window = Duration.ofSeconds(Long.parseLong(value));
        case "--rounds" -> o.rounds = Integer.parseInt(value);
        case "--results" -> o.results = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
      }
      i++;
    }
    return o;
  }
}
