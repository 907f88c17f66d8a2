/** The shared-file provider's benchmarks: a JMH cycle against raw file operations, and hand-off. */
@NullMarked
package dev.locksmith.benchmarks.file;

import org.jspecify.annotations.NullMarked;
