/**
 * A small bank on Spring Boot: a REST transfer endpoint that locks both accounts around a
 * transaction, and a scheduled balance report that runs once per tick across every instance.
 */
@NullMarked
package dev.locksmith.samples.springboot;

import org.jspecify.annotations.NullMarked;
