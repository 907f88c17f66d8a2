/** JMH benchmarks: the engine's cost per call, and providers against their peers. */
@NullMarked
package dev.locksmith.benchmarks;

import org.jspecify.annotations.NullMarked;
