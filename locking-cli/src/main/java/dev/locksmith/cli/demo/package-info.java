/**
 * {@code locksmith demo}: worker JVMs whose {@code @DistributedLock} method (woven by AspectJ)
 * updates a fenced ledger, a live timeline, and a verdict.
 */
@NullMarked
package dev.locksmith.cli.demo;

import org.jspecify.annotations.NullMarked;
