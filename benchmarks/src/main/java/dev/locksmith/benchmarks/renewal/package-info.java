/** Many leases held and renewing on one engine: renewal round trips, threads and losses. */
@NullMarked
package dev.locksmith.benchmarks.renewal;

import org.jspecify.annotations.NullMarked;
