/** Lock events as Micrometer meters, tagged with lock names and providers, never keys. */
@NullMarked
package dev.locksmith.micrometer;

import org.jspecify.annotations.NullMarked;
