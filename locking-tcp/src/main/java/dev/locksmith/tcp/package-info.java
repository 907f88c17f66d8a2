/**
 * The {@code tcp://} provider: one multiplexed connection to a Locksmith lock server, with
 * reconnection and lost-lease reporting.
 */
@NullMarked
package dev.locksmith.tcp;

import org.jspecify.annotations.NullMarked;
