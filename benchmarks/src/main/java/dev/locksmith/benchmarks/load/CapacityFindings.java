package dev.locksmith.benchmarks.load;

import java.util.ArrayList;
import java.util.List;

/** What the phases of {@link Capacity} found that the section's conclusion and later phases use. */
final class CapacityFindings {
  /** What bounds each figure, one bullet per phase. */
  final List<String> limits = new ArrayList<>();

  /** Grants per second the lock server gave pipelining clients in the locks phase, or 0. */
  double pipelinedRate;
}
