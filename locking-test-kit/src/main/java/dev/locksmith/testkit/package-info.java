/** The conformance suite every provider passes, and the multi-process harness. */
@NullMarked
package dev.locksmith.testkit;

import org.jspecify.annotations.NullMarked;
