/** Tests of the file provider against real directories and real child JVMs. */
@NullMarked
package dev.locksmith.file;

import org.jspecify.annotations.NullMarked;
