/**
 * Header rows of tables: the words maintenance tables name their columns with, and whether the
 * first row of a table that marks no header is one (an AsciiDoc table without a blank line after
 * its first row, an HTML table of <td> cells only, an RST list-table without :header-rows:).
 */

/** Header words of maintenance tables (code tables, parts lists, settings, wiring). */
const HEADER_WORDS =
  /^(?:no\.?|nr\.?|#|item|pos\.?|code|codes|error|fault|alarm|alert|event|message|display|led|description|desc\.?|meaning|name|title|part|part\s*(?:no\.?|number|#)|qty|quantity|cause|causes|possible\s+cause|remedy|solution|action|corrective\s+action|measure|value|values|unit|units|default|range|min\.?|max\.?|parameter|setting|settings|function|symptom|problem|check|type|model|size|torque|pin|signal|terminal|wire|colou?r|connector|voltage|current|interval|notes?|remarks?|comment|step|page|ref\.?|reference|supplier|vendor|status|state|condition|level|severity|reason|result|spec(?:ification)?|standard|mode|address|register|bit|key|id|(?:error|fault|alarm|code|message)\s*(?:no\.?|nr\.?|number|#|code|id)|代码|故障码|报警|报警号|错误|错误码|故障|名称|描述|说明|含义|原因|可能原因|处理|处理方法|对策|措施|解决方法|排除方法|备注|数量|型号|参数|设定值|默认值|范围|单位|序号|项目|信号|端子|颜色|内容)$/i;

export function isHeaderWord(cell: string): boolean {
  return HEADER_WORDS.test(cell.trim().replace(/[:：]$/, ''));
}

/**
 * Whether the first row of a table without a marked header names its columns: no cell of it holds
 * a digit, and at least half of its cells (two or more) are header words ("No. | Name | Action",
 * "错误码 | 描述"). A first row of values ("S01 | Overcurrent | Reduce acceleration") has a code or
 * plain words, and stays a row.
 */
export function firstRowIsHeader(rows: readonly (readonly string[])[]): boolean {
  if (rows.length < 2) return false;
  const head = (rows[0] ?? []).map((c) => c.trim()).filter(Boolean);
  if (head.length < 2 || head.some((c) => /\d/.test(c))) return false;
  return head.filter(isHeaderWord).length * 2 >= head.length;
}
