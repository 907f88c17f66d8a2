/** A call over two keys against two nested single-key calls, on the Redis and TCP providers. */
@NullMarked
package dev.locksmith.benchmarks.keys;

import org.jspecify.annotations.NullMarked;
