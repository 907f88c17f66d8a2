package dev.locksmith.testkit;

import java.nio.file.Path;
import java.util.List;

/**
 * What the processes of one harness run did, before their records are read.
 *
 * @param exitCodes each process's exit code, -1 when it did not finish in time
 * @param logs each child's output file (empty in one JVM)
 * @param started when the first process was started ({@link System#nanoTime()})
 * @param go when every process was told to start its transfers ({@link System#nanoTime()})
 * @param warmUps each process's warm-up
 */
record TransferRun(
    List<Integer> exitCodes, List<Path> logs, long started, long go, WarmUps warmUps) {}
