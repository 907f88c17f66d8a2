/** The in-memory provider ({@code mem:}): real lease semantics within one JVM. */
@NullMarked
package dev.locksmith.core.memory;

import org.jspecify.annotations.NullMarked;
