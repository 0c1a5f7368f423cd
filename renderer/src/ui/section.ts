/**
 * The section path as shown beside its manual's title: a path that begins with that title (a page's
 * first heading is usually its title; an untitled page's title roots its paths) is shown from the
 * next heading on, so a hit reads "Maintenance · Weekly", not "Maintenance · Maintenance > Weekly".
 * The full path stays what opens the source (the viewer matches on it).
 */
export function sectionBelowTitle(manual: string, section: string): string {
  const title = manual.trim();
  const path = section.trim();
  if (!title || !path) return path;
  if (path === title) return '';
  return path.startsWith(`${title} > `) ? path.slice(title.length + 3) : path;
}
