/** Tests of the Micronaut integration against real application contexts and real providers. */
@NullMarked
package dev.locksmith.micronaut.app;

import org.jspecify.annotations.NullMarked;
