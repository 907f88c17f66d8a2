package dev.locksmith.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What the JMH benchmarks of this module share unless one says otherwise (JMH reads these
 * annotations from the superclass; a subclass's own annotation wins): the benchmark class is its
 * own state for the whole run, one fork, average time in microseconds. Each benchmark names its
 * warm-up and measurement.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
public abstract class BenchmarkDefaults {
  /** For subclasses. */
  protected BenchmarkDefaults() {}
}
