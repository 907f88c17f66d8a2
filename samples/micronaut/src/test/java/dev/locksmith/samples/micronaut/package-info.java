/** Smoke tests of the Micronaut sample against a real context, HTTP server and lock server. */
@NullMarked
package dev.locksmith.samples.micronaut;

import org.jspecify.annotations.NullMarked;
