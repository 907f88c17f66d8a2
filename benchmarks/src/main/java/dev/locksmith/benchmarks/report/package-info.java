/** The one command that runs every benchmark and writes {@code benchmarks/RESULTS.md}. */
@NullMarked
package dev.locksmith.benchmarks.report;

import org.jspecify.annotations.NullMarked;
